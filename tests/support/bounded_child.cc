#include "tests/support/bounded_child.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace hn::test {

std::string ChildOutcome::describe() const {
  std::string s = finished ? "exit " + std::to_string(exit_code)
                  : signal ? "killed by signal " + std::to_string(signal)
                           : "did not finish";
  return s + " after " + std::to_string(elapsed.count()) + " ms, peak " +
         std::to_string(peak_rss_kib) + " KiB";
}

ChildOutcome run_bounded(const std::function<int()>& fn, std::chrono::milliseconds limit,
                         std::size_t address_space_bytes) {
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (address_space_bytes > 0) {
      rlimit rl{address_space_bytes, address_space_bytes};
      setrlimit(RLIMIT_AS, &rl);
    }
    int code = 125;
    try {
      code = fn();
    } catch (...) {
      code = 124;
    }
    _exit(code);
  }
  ChildOutcome out;
  if (pid < 0) return out;
  int status = 0;
  rusage ru{};
  bool killed = false;
  for (;;) {
    pid_t r = wait4(pid, &status, WNOHANG, &ru);
    if (r == pid) break;
    if (!killed && std::chrono::steady_clock::now() - t0 > limit) {
      kill(pid, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  out.elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  out.peak_rss_kib = ru.ru_maxrss;
  if (WIFEXITED(status) && !killed) {
    out.finished = true;
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

}  // namespace hn::test
