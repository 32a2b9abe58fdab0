#include "probes/supervised_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "reports/json_report.h"

namespace hn::probes {

namespace {

volatile sig_atomic_t g_signal_fd = -1;

void on_signal(int) {
  int saved = errno;
  char b = 1;
  if (g_signal_fd >= 0) {
    ssize_t ignored = write(g_signal_fd, &b, 1);
    (void)ignored;
  }
  errno = saved;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);  // the supervisor is gone; nobody to tell
    off += static_cast<size_t>(n);
  }
}

std::string one_line(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return out;
}

class PipeChannel final : public WorkerChannel {
 public:
  explicit PipeChannel(int fd) : fd_(fd) {}
  void step(std::string_view what) override { write_all(fd_, "S " + one_line(what) + "\n"); }
  void emit(const reports::Finding& f) override {
    write_all(fd_, "F " +
                       reports::finding_to_json(f).dump(-1, ' ', false,
                                                        nlohmann::json::error_handler_t::replace) +
                       "\n");
  }
  void line(const std::string& s) { write_all(fd_, one_line(s) + "\n"); }

 private:
  int fd_;
};

[[noreturn]] void worker_main(const std::function<void(WorkerChannel&)>& work, int fd,
                              pid_t supervisor) {
  if (fd <= 2) fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);  // stdio is about to be replaced
  // A worker stuck in a hung mount must not hold the caller's stdout/stderr
  // open: whoever reads them (a Prolog wrapper, a test) would wait for it.
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    if (null_fd > 2) close(null_fd);
  }
  // Nor any other descriptor of the caller's (the runner's result pipe above
  // all: the runner waits for its EOF), only the pipe to the supervisor.
  if (fd > 3) close_range(3, static_cast<unsigned>(fd - 1), 0);
  close_range(static_cast<unsigned>(fd + 1), ~0u, 0);
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != supervisor) _exit(2);
  PipeChannel ch(fd);
  try {
    work(ch);
    ch.line("E");
  } catch (const std::exception& e) {
    ch.line(std::string("X ") + e.what());
  } catch (...) {
    ch.line("X unknown exception");
  }
  _exit(0);
}

struct Handlers {
  struct sigaction old_term {
  }, old_int{};
  int fds[2] = {-1, -1};
  Handlers() {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
    g_signal_fd = fds[1];
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGINT, &sa, &old_int);
  }
  ~Handlers() {
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGINT, &old_int, nullptr);
    g_signal_fd = -1;
    close(fds[0]);
    close(fds[1]);
  }
};

std::string describe_status(int status) {
  if (WIFSIGNALED(status))
    return std::string("worker killed by signal ") + strsignal(WTERMSIG(status));
  if (WIFEXITED(status)) return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "worker ended abnormally";
}

}  // namespace

SupervisedRun run_supervised(const std::function<void(WorkerChannel&)>& work,
                             Clock::time_point deadline) {
  const auto start = Clock::now();
  SupervisedRun run;
  Handlers handlers;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t self = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(err));
  }
  if (pid == 0) {
    close(fds[0]);
    worker_main(work, fds[1], self);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);

  std::string buffer, error_line;
  bool completed = false, eof = false, interrupted = false;
  auto handle = [&](const std::string& line) {
    if (line.size() >= 2 && line[0] == 'S') {
      run.last_step = line.substr(2);
    } else if (line.size() >= 2 && line[0] == 'F') {
      try {
        run.findings.push_back(reports::finding_from_json(nlohmann::json::parse(line.substr(2))));
      } catch (const std::exception& e) {
        error_line = std::string("unreadable finding from the worker: ") + e.what();
      }
    } else if (line == "E") {
      completed = true;
    } else if (line.size() >= 2 && line[0] == 'X') {
      error_line = line.substr(2);
    }
  };
  // Reads what the worker has written so far, without blocking.
  auto drain = [&] {
    char buf[65536];
    for (;;) {
      ssize_t r = read(fds[0], buf, sizeof buf);
      if (r > 0) {
        buffer.append(buf, static_cast<size_t>(r));
        continue;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) eof = true;
      break;  // EAGAIN: nothing more for now
    }
    for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
      handle(buffer.substr(0, nl));
      buffer.erase(0, nl + 1);
    }
  };
  while (!eof) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p[2] = {{fds[0], POLLIN, 0}, {handlers.fds[0], POLLIN, 0}};
    int n = poll(p, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) break;
    if (p[1].revents) {
      interrupted = true;
      break;
    }
    if (n > 0 && p[0].revents) drain();
  }
  // Whatever the worker said before the deadline or the signal still counts
  // (the step that hung, findings made just before).
  if (!eof) drain();
  close(fds[0]);

  int status = 0;
  bool reaped = false;
  if (eof) {
    // The worker closed its end; it exits right after. Give it a moment.
    for (int i = 0; i < 50 && !reaped; ++i) {
      reaped = waitpid(pid, &status, WNOHANG) == pid;
      if (!reaped) usleep(1000);
    }
  }
  if (!reaped) {
    kill(pid, SIGKILL);
    reaped = waitpid(pid, &status, WNOHANG) == pid;  // a worker stuck in the kernel stays
  }
  run.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (completed && error_line.empty()) {
    run.end = SupervisedRun::End::kCompleted;
  } else if (interrupted) {
    run.end = SupervisedRun::End::kInterrupted;
  } else if (!eof) {
    run.end = SupervisedRun::End::kTimedOut;
  } else {
    run.end = SupervisedRun::End::kFailed;
    run.failure = !error_line.empty() ? error_line
                  : reaped            ? describe_status(status)
                                      : "worker ended without reporting";
  }
  return run;
}

bool run_killable(const std::function<void()>& fn, Clock::time_point deadline, std::string& error) {
  SupervisedRun r = run_supervised([&](WorkerChannel&) { fn(); }, deadline);
  switch (r.end) {
    case SupervisedRun::End::kCompleted:
      return true;
    case SupervisedRun::End::kTimedOut:
      error = "did not finish within the deadline";
      break;
    case SupervisedRun::End::kInterrupted:
      error = "interrupted";
      break;
    case SupervisedRun::End::kFailed:
      error = r.failure;
      break;
  }
  return false;
}

}  // namespace hn::probes
