#include "preflight/certify/host_agent.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>

namespace hn::preflight::certify {

namespace {

using Clock = HostAgent::Clock;

int ms_until(Clock::time_point t) {
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(t - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 1 << 30));
}

// Blocking writes of whole frames: [u32 length][bytes]. False when the other
// end is gone.
bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool write_frame(int fd, const std::string& s) {
  std::uint32_t n = static_cast<std::uint32_t>(s.size());
  return write_all(fd, &n, sizeof n) && write_all(fd, s.data(), s.size());
}

// Reads exactly n bytes by the deadline. Returns false on EOF or timeout
// (`timed_out` tells which).
bool read_all(int fd, void* data, std::size_t n, Clock::time_point deadline, bool& timed_out) {
  char* p = static_cast<char*>(data);
  timed_out = false;
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    int r = poll(&pfd, 1, ms_until(deadline));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      timed_out = true;
      return false;
    }
    ssize_t got = read(fd, p, n);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

bool read_frame(int fd, std::string& out, Clock::time_point deadline, bool& timed_out) {
  std::uint32_t n = 0;
  if (!read_all(fd, &n, sizeof n, deadline, timed_out)) return false;
  out.assign(n, '\0');
  return read_all(fd, out.data(), n, deadline, timed_out);
}

Clock::time_point forever() {
  return Clock::now() + std::chrono::hours(24 * 365);
}

// Reaps a child that was killed; one stuck in the kernel is left behind
// after a short while rather than blocking the agent.
int reap(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return -1;
    usleep(1000);
  }
  return -1;
}

// In a fresh child of the agent: runs the job, writes 'o' + answer or
// 'e' + why to `out`.
[[noreturn]] void job_main(const HostAgent::Job& job, const std::string& arg,
                           Clock::time_point deadline, int out) {
  std::string reply;
  try {
    reply = "o" + job(arg, deadline);
  } catch (const std::exception& e) {
    reply = std::string("e") + e.what();
  } catch (...) {
    reply = "eunknown exception";
  }
  write_frame(out, reply);
  _exit(0);
}

[[noreturn]] void agent_main(int sock, const std::map<std::string, HostAgent::Job>& jobs) {
  for (;;) {
    std::string name, arg, budget;
    bool timed_out = false;
    if (!read_frame(sock, name, forever(), timed_out) ||
        !read_frame(sock, arg, forever(), timed_out) ||
        !read_frame(sock, budget, forever(), timed_out))
      _exit(0);  // the rank closed its end or died
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::stoll(budget));
    auto it = jobs.find(name);
    if (it == jobs.end()) {
      if (!write_frame(sock, "eno such host job: " + name)) _exit(0);
      continue;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
      if (!write_frame(sock, std::string("epipe failed: ") + std::strerror(errno))) _exit(0);
      continue;
    }
    const pid_t agent = getpid();
    pid_t child = fork();
    if (child == 0) {
      close(p[0]);
      close(sock);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != agent) _exit(0);
      job_main(it->second, arg, deadline, p[1]);
    }
    close(p[1]);
    std::string reply;
    if (child < 0) {
      reply = std::string("efork failed: ") + std::strerror(errno);
    } else {
      const auto kill_at = deadline + HostAgent::kKillGrace;
      if (!read_frame(p[0], reply, kill_at, timed_out)) {
        kill(child, SIGKILL);
        reply = timed_out ? "ehost job " + name + " did not finish within its deadline of " +
                                budget + " ms and was killed"
                          : "ehost job " + name + " ended without an answer";
      }
      int status = reap(child);
      if (reply.empty() || (reply[0] != 'o' && reply[0] != 'e')) reply = "ebad answer";
      if (status != -1 && WIFSIGNALED(status) && reply[0] != 'o' && !timed_out)
        reply = "ehost job " + name + " crashed: signal " + std::to_string(WTERMSIG(status));
    }
    close(p[0]);
    if (!write_frame(sock, reply)) _exit(0);
  }
}

}  // namespace

HostAgent::HostAgent(std::map<std::string, Job> jobs) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::system_error(errno, std::generic_category(), "socketpair for the host agent");
  const pid_t rank = getpid();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(sv[0]);
    close(sv[1]);
    throw std::system_error(e, std::generic_category(), "fork of the host agent");
  }
  if (pid == 0) {
    close(sv[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != rank) _exit(0);
    // Keep stdio and the agent's socket; drop the rest (the rendezvous
    // socket rank 0 inherited must not stay open in here).
    int sock = sv[1] > 3 ? sv[1] : fcntl(sv[1], F_DUPFD_CLOEXEC, 4);
    if (sock > 3) close_range(3, static_cast<unsigned>(sock - 1), 0);
    close_range(static_cast<unsigned>(sock + 1), ~0u, 0);
    agent_main(sock, jobs);
  }
  close(sv[1]);
  fd_ = sv[0];
  pid_ = pid;
}

HostAgent::~HostAgent() {
  if (fd_ >= 0) close(fd_);  // the agent reads EOF and exits
  if (pid_ > 0) {
    if (reap(pid_) == -1) {
      kill(pid_, SIGKILL);
      reap(pid_);
    }
  }
}

void HostAgent::start(const std::string& job, const std::string& arg, Clock::time_point deadline) {
  if (busy_) throw std::logic_error("host agent: a job is already running");
  const auto budget = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (!write_frame(fd_, job) || !write_frame(fd_, arg) ||
      !write_frame(fd_, std::to_string(std::max<long long>(0, budget))))
    throw AgentError("the host agent is gone");
  busy_ = true;
}

std::string HostAgent::result(Clock::time_point deadline) {
  if (!busy_) throw std::logic_error("host agent: no job was started");
  std::string reply;
  bool timed_out = false;
  if (!read_frame(fd_, reply, deadline, timed_out)) {
    // The answer is late: the agent kills its job at its own deadline and
    // answers then; the caller has moved on, so this agent is done.
    throw AgentError(timed_out ? "the host agent did not answer by the deadline"
                               : "the host agent is gone");
  }
  busy_ = false;
  if (reply.empty()) throw AgentError("the host agent sent an empty answer");
  if (reply[0] == 'e') throw AgentError(reply.substr(1));
  return reply.substr(1);
}

std::string HostAgent::run(const std::string& job, const std::string& arg,
                           Clock::time_point deadline) {
  start(job, arg, deadline);
  return result(deadline + kKillGrace + std::chrono::milliseconds(500));
}

}  // namespace hn::preflight::certify
