#include "stack/isolation/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

namespace hn::stack::isolation {

namespace {

[[noreturn]] void sys_fail(int err, const char* what) {
  throw std::system_error(err, std::generic_category(), what);
}

// Everything the child does between fork and its body. Only async-signal-safe
// calls until the body runs: the parent's other state is a copy.
int prepare_child(const SpawnOptions& o, pid_t parent, int result_fd) {
  if (o.process_group >= 0) setpgid(0, o.process_group);
  prctl(PR_SET_PDEATHSIG, o.parent_death_signal);
  if (getppid() != parent) _exit(128 + o.parent_death_signal);  // the parent died before prctl
  if (o.default_signals) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
  }
  // The result pipe is 0-2 only when our caller started with stdio closed:
  // move it above stdio before stdio is replaced.
  if (result_fd >= 0 && result_fd <= 2) result_fd = fcntl(result_fd, F_DUPFD_CLOEXEC, 3);
  if (o.stdio == Stdio::kDetach) {
    if (int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC); null_fd >= 0) {
      dup2(null_fd, 0);
      dup2(null_fd, 1);
      dup2(null_fd, 2);
      if (null_fd > 2 && null_fd != result_fd) close(null_fd);
    }
  }
  if (o.close_other_fds) {
    if (result_fd > 3) close_range(3, static_cast<unsigned>(result_fd - 1), 0);
    close_range(static_cast<unsigned>(std::max(result_fd, 2) + 1), ~0u, 0);
  }
  return result_fd;
}

}  // namespace

Child::Child(Child&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      fd_(std::exchange(other.fd_, -1)),
      eof_(std::exchange(other.eof_, true)),
      output_(std::move(other.output_)),
      status_(std::exchange(other.status_, std::nullopt)) {}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    this->~Child();
    new (this) Child(std::move(other));
  }
  return *this;
}

Child::~Child() {
  if (pid_ > 0 && !status_) kill();
  close_pipe();
}

void Child::close_pipe() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  eof_ = true;
}

bool Child::read_available() {
  char buf[65536];
  while (fd_ >= 0) {
    ssize_t r = read(fd_, buf, sizeof buf);
    if (r > 0) {
      output_.append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return false;
    close_pipe();  // EOF, or a read error: the child is done writing either way
  }
  return eof_;
}

std::optional<int> Child::try_reap() {
  if (status_ || pid_ <= 0) return status_;
  int st = 0;
  pid_t r;
  do r = waitpid(pid_, &st, WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == pid_) status_ = st;
  return status_;
}

std::optional<int> Child::reap_within(std::chrono::milliseconds within) {
  const auto until = Clock::now() + within;
  while (!try_reap() && Clock::now() < until) usleep(1000);
  return status_;
}

bool Child::kill() {
  if (pid_ > 0 && !status_) ::kill(pid_, SIGKILL);
  close_pipe();
  return try_reap().has_value();
}

Child spawn(const SpawnOptions& options, const std::function<int(int result_fd)>& body) {
  int fds[2] = {-1, -1};
  if (options.result_pipe && pipe2(fds, O_CLOEXEC) != 0) sys_fail(errno, "pipe");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    sys_fail(err, "fork");
  }
  if (pid == 0) {
    if (fds[0] >= 0) close(fds[0]);
    int result_fd = prepare_child(options, parent, fds[1]);
    int code = 1;
    try {
      code = body(result_fd);
    } catch (...) {
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
  }
  if (options.process_group >= 0)
    setpgid(pid, options.process_group == 0 ? pid : options.process_group);
  if (fds[1] >= 0) close(fds[1]);
  if (fds[0] >= 0) fcntl(fds[0], F_SETFL, O_NONBLOCK);
  return Child(pid, fds[0]);
}

std::vector<bool> wait_readable(const std::vector<int>& fds, Clock::time_point until) {
  std::vector<pollfd> p;
  p.reserve(fds.size());
  for (int fd : fds) p.push_back({fd, POLLIN, 0});  // poll ignores negative fds
  int timeout_ms = -1;                              // Clock::time_point::max(): no deadline
  if (until != Clock::time_point::max()) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
    timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
  }
  int n = poll(p.data(), p.size(), timeout_ms);
  if (n < 0 && errno != EINTR) sys_fail(errno, "poll");
  std::vector<bool> ready(fds.size(), false);
  for (size_t i = 0; i < p.size() && n > 0; ++i) ready[i] = p[i].fd >= 0 && p[i].revents != 0;
  return ready;
}

void reap_briefly(std::vector<Child>& killed, std::chrono::milliseconds within) {
  const auto until = Clock::now() + within;
  for (;;) {
    std::erase_if(killed, [](Child& c) { return c.try_reap().has_value(); });
    if (killed.empty() || Clock::now() >= until) return;
    usleep(1000);
  }
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "status " + std::to_string(status);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace hn::stack::isolation
