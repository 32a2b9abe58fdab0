#include "drivers/supervised_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "reports/json_report.h"
#include "stack/isolation/child_process.h"

namespace hn::drivers {

namespace isolation = stack::isolation;

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
  if (!isolation::write_all(fd, s)) _exit(3);  // the supervisor is gone; nobody to tell
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

// The worker's body: runs `work` and reports how it ended on the last line.
int worker_main(const std::function<void(WorkerChannel&)>& work, int fd) {
  signal(SIGPIPE, SIG_DFL);
  PipeChannel ch(fd);
  try {
    work(ch);
    ch.line("E");
  } catch (const std::exception& e) {
    ch.line(std::string("X ") + e.what());
  } catch (...) {
    ch.line("X unknown exception");
  }
  return 0;
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

}  // namespace

SupervisedRun run_supervised(const std::function<void(WorkerChannel&)>& work,
                             Clock::time_point deadline) {
  const auto start = Clock::now();
  SupervisedRun run;
  Handlers handlers;
  // The worker: SIGKILLed if we die, stdio on /dev/null, none of the
  // caller's descriptors (the runner's result pipe above all: the runner
  // waits for its EOF), only the pipe to us.
  isolation::Child worker = isolation::spawn({}, [&](int fd) { return worker_main(work, fd); });

  std::string error_line;
  bool completed = false, interrupted = false;
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
  while (!worker.eof() && Clock::now() < deadline) {
    auto ready = isolation::wait_readable(
        {worker.fd(), handlers.fds[0]}, std::min(deadline, Clock::now() + std::chrono::seconds(1)));
    if (ready[1]) {
      interrupted = true;
      break;
    }
    if (ready[0]) worker.read_available();
  }
  // Whatever the worker said before the deadline or the signal still counts
  // (the step that hung, findings made just before).
  const bool eof = worker.read_available();
  std::string_view out = worker.output();
  for (size_t nl; (nl = out.find('\n')) != std::string_view::npos; out.remove_prefix(nl + 1))
    handle(std::string(out.substr(0, nl)));

  // After EOF the worker exits right away: give it a moment. Otherwise (or
  // if it lingers) SIGKILL; a worker stuck in the kernel stays unreaped.
  std::optional<int> status;
  if (eof) status = worker.reap_within(std::chrono::milliseconds(50));
  if (!status && worker.kill()) status = worker.status();
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
                  : status            ? "worker ended: " + isolation::describe_status(*status)
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

}  // namespace hn::drivers
