#include "stack/l5_sched/local_launcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

#include "stack/isolation/child_process.h"

namespace hn::stack::sched {

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void sys_fail(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// A listening TCP socket on 127.0.0.1 with a kernel-chosen port; inherited
// by the children (no CLOEXEC).
int bind_store_socket(int& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) sys_fail("socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 1024) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    sys_fail("binding the rendezvous socket on 127.0.0.1");
  }
  port = ntohs(a.sin_port);
  return fd;
}

}  // namespace

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  std::size_t got = 0;
  while (got < bytes) {
    ssize_t n = getrandom(b.data() + got, bytes - got, 0);
    if (n < 0 && errno != EINTR) sys_fail("getrandom");
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

LaunchResult launch_local(const LaunchOptions& options,
                          const std::function<int(int rank)>& child_main) {
  const int n = options.ranks;
  int port = 0;
  int store_fd = bind_store_socket(port);
  std::string job = std::getenv("HN_JOB_ID") ? std::getenv("HN_JOB_ID") : "local-" + random_hex(6);
  std::string token = std::getenv("HN_TOKEN") ? std::getenv("HN_TOKEN") : random_hex(32);

  sigset_t watched, old;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  sigaddset(&watched, SIGINT);
  sigaddset(&watched, SIGTERM);
  sigprocmask(SIG_BLOCK, &watched, &old);

  std::vector<int> cpus;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (options.bind_to_core && !std::getenv("HN_NO_BIND") &&
      sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  // More ranks than CPUs: rank r on CPU r mod k, as mpirun's --bind-to
  // core:overload-allowed. Unbound, the scheduler may stack three of four
  // ranks on one CPU for a while; pinned, every CPU alternates between the
  // same n/k ranks (bench/README.md "Tuning": 8 B on 4 ranks / 2 CPUs, 9-20 us
  // unbound against 10-12 us pinned).

  // One process group led by rank 0, stdio shared with the launcher (ranks
  // print their own output), every descriptor inherited (rank 0 needs
  // store_fd; the others close it).
  isolation::SpawnOptions spawn_options;
  spawn_options.stdio = isolation::Stdio::kInherit;
  spawn_options.result_pipe = false;
  spawn_options.close_other_fds = false;
  spawn_options.process_group = 0;
  std::vector<isolation::Child> ranks;
  ranks.reserve(n);
  for (int r = 0; r < n; ++r) {
    try {
      ranks.push_back(isolation::spawn(spawn_options, [&](int) {
        sigprocmask(SIG_SETMASK, &old, nullptr);
        if (!cpus.empty()) {
          cpu_set_t one;
          CPU_ZERO(&one);
          CPU_SET(cpus[static_cast<std::size_t>(r) % cpus.size()], &one);
          sched_setaffinity(0, sizeof one, &one);
        }
        setenv("HN_RANK", std::to_string(r).c_str(), 1);
        setenv("HN_WORLD_SIZE", std::to_string(n).c_str(), 1);
        setenv("HN_LOCAL_RANK", std::to_string(r).c_str(), 1);
        setenv("HN_LOCAL_WORLD_SIZE", std::to_string(n).c_str(), 1);
        setenv("HN_NODE_RANK", "0", 1);
        setenv("HN_JOB_ID", job.c_str(), 1);
        setenv("HN_TOKEN", token.c_str(), 1);
        setenv("HN_RENDEZVOUS", ("127.0.0.1:" + std::to_string(port)).c_str(), 1);
        if (r == 0) {
          setenv("HN_STORE_FD", std::to_string(store_fd).c_str(), 1);
        } else {
          close(store_fd);
          unsetenv("HN_STORE_FD");
        }
        try {
          return child_main(r);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "rank %d: %s\n", r, e.what());
          return 1;
        }
      }));
    } catch (...) {
      close(store_fd);
      sigprocmask(SIG_SETMASK, &old, nullptr);
      throw;  // the ranks already started are SIGKILLed and reaped as `ranks` unwinds
    }
    if (r == 0) spawn_options.process_group = ranks[0].pid();
  }
  const pid_t pgid = n > 0 ? ranks[0].pid() : 0;
  close(store_fd);

  LaunchResult result;
  result.exit_codes.assign(static_cast<std::size_t>(n), -1);
  result.signalled.assign(static_cast<std::size_t>(n), false);
  int running = n;
  Clock::time_point term_at = Clock::time_point::max(), kill_at = Clock::time_point::max();
  while (running > 0) {
    auto now = Clock::now();
    if (now >= term_at) {
      kill(-pgid, SIGTERM);
      term_at = Clock::time_point::max();
      kill_at = now + options.kill_grace;
    }
    if (now >= kill_at) {
      kill(-pgid, SIGKILL);
      kill_at = Clock::time_point::max();
    }
    auto next = std::min(term_at, kill_at);
    timespec ts{0, 50 * 1000 * 1000};
    if (next != Clock::time_point::max()) {
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(next - now).count();
      ns = std::max<long long>(ns, 1000000);
      ts = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    }
    int sig = sigtimedwait(&watched, nullptr, &ts);
    if (sig == SIGINT || sig == SIGTERM) {
      kill(-pgid, sig);
      if (result.first_failed_rank < 0)
        result.first_failure = "interrupted by signal " + std::to_string(sig);
      if (kill_at == Clock::time_point::max()) kill_at = Clock::now() + options.kill_grace;
    }
    for (int rank = 0; rank < n; ++rank) {
      if (ranks[rank].status()) continue;
      auto status = ranks[rank].try_reap();
      if (!status) continue;
      --running;
      result.exit_codes[static_cast<std::size_t>(rank)] = isolation::exit_code_of(*status);
      result.signalled[static_cast<std::size_t>(rank)] = !WIFEXITED(*status);
      if (rank == options.leader && running > 0)
        kill_at = std::min(kill_at, Clock::now() + options.leader_grace);
      bool failed = !(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
      if (failed && result.first_failed_rank < 0) {
        result.first_failed_rank = rank;
        result.first_failure = isolation::describe_status(*status);
        result.exit_code = isolation::exit_code_of(*status);
        if (running > 0) {
          std::fprintf(stderr, "hnprecheck: rank %d %s; stopping the other %d rank(s)\n", rank,
                       result.first_failure.c_str(), running);
          if (term_at == Clock::time_point::max() && kill_at == Clock::time_point::max())
            term_at = Clock::now() + options.stop_delay;
        }
      }
    }
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (result.first_failed_rank < 0 && !result.first_failure.empty()) result.exit_code = 130;
  return result;
}

}  // namespace hn::stack::sched
