#include "preflight/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "reports/catalog.h"
#include "reports/json_report.h"

namespace hn::preflight {

using Clock = std::chrono::steady_clock;
using reports::Finding;
using reports::Status;

namespace {

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

Finding runner_finding(const probes::Probe& p, const char* code, Status st,
                       const reports::Params& params, double elapsed_ms) {
  Finding f = reports::make_finding(code, st, p.name, params);
  f.layer = p.layer;
  f.duration_ms = elapsed_ms;
  return f;
}

Finding timeout_finding(const probes::Probe& p, std::chrono::milliseconds deadline, bool cut_by_run,
                        const char* action, double elapsed_ms) {
  const std::string ms = std::to_string(deadline.count());
  return runner_finding(
      p, "RUN-PROBE-TIMEOUT", Status::kFail,
      {{"probe", p.name},
       {"deadline_ms", ms},
       {"limit", cut_by_run ? "the run's --timeout (" + ms + " ms were left for it)"
                            : "its deadline of " + ms + " ms"},
       {"action", action}},
      elapsed_ms);
}

Finding error_finding(const probes::Probe& p, const std::string& reason, double elapsed_ms) {
  return runner_finding(p, "RUN-PROBE-ERROR", Status::kError,
                        {{"probe", p.name}, {"reason", reason}}, elapsed_ms);
}

// What one probe produced; written by a worker thread, read by the loop.
struct ThreadResult {
  std::mutex mu;
  bool done = false;
  std::vector<Finding> findings;
  std::string error;
};

struct Pending {
  const probes::Probe* probe = nullptr;
  Clock::time_point start, deadline;
  std::chrono::milliseconds budget{0};
  bool cut_by_run = false;  // the run's --timeout, not the probe's own deadline, set budget
  // child probes
  pid_t pid = -1;
  int fd = -1;
  bool eof = false;  // pipe closed; waiting for the exit status
  std::string output;
  // in-process probes
  std::shared_ptr<ThreadResult> result;
  bool finished = false;
};

std::atomic<bool> g_threads_abandoned{false};

// SIGKILLed children normally die within a millisecond; reap them so a
// long-lived caller does not collect zombies. One stuck in an unkillable
// sleep (a hard-mounted NFS server gone) is left behind after 20 ms rather
// than blocking the run.
void reap_briefly(std::vector<pid_t>& pids) {
  for (int round = 0; round < 20 && !pids.empty(); ++round) {
    std::erase_if(pids, [](pid_t p) { return waitpid(p, nullptr, WNOHANG) != 0; });
    if (!pids.empty()) usleep(1000);
  }
}

// A probe's clock starts now; its budget is its own deadline, cut to what
// is left of the run.
Pending start_pending(const probes::Probe& p, Clock::time_point run_deadline) {
  Pending pd;
  pd.probe = &p;
  pd.start = Clock::now();
  // What is left of the run may be nothing (a tiny --timeout already spent
  // on forking): the budget is then 0, never negative.
  auto left =
      std::max(std::chrono::milliseconds(0),
               std::chrono::duration_cast<std::chrono::milliseconds>(run_deadline - pd.start));
  pd.cut_by_run = left < p.deadline;
  pd.budget = std::min(p.deadline, left);
  pd.deadline = pd.start + pd.budget;
  return pd;
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Runs in the forked child: findings as a JSON array, or {"error": "..."}.
[[noreturn]] void child_main(const probes::Probe& p, int fd, Clock::time_point kill_at) {
  std::string out;
  try {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& f : p.run_until ? p.run_until(kill_at) : p.run())
      arr.push_back(reports::finding_to_json(f));
    out = arr.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception& e) {
    out = nlohmann::json{{"error", e.what()}}.dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace);
  } catch (...) {
    out = nlohmann::json{{"error", "unknown exception"}}.dump();
  }
  write_all(fd, out);
  close(fd);
  _exit(0);
}

// Called once the child has exited (reaped with `status`).
void finish_child(Pending& pd, int status, std::vector<Finding>& out) {
  double elapsed = ms_since(pd.start);
  const auto& p = *pd.probe;
  if (WIFSIGNALED(status)) {
    out.push_back(error_finding(
        p, std::string("child process killed by signal ") + strsignal(WTERMSIG(status)), elapsed));
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && pd.output.empty()) {
    out.push_back(error_finding(p,
                                "child process exited with status " +
                                    std::to_string(WEXITSTATUS(status)) +
                                    " without reporting findings",
                                elapsed));
    return;
  }
  try {
    auto j = nlohmann::json::parse(pd.output);
    if (j.is_object() && j.contains("error")) {
      out.push_back(error_finding(p, j["error"].get<std::string>(), elapsed));
      return;
    }
    for (const auto& item : j) {
      Finding f = reports::finding_from_json(item);
      if (f.duration_ms == 0) f.duration_ms = elapsed;
      out.push_back(std::move(f));
    }
  } catch (const std::exception& e) {
    out.push_back(error_finding(
        p, std::string("child process returned unreadable output: ") + e.what(), elapsed));
  }
}

}  // namespace

bool threads_abandoned() {
  return g_threads_abandoned.load();
}

std::vector<Finding> run_probes(const std::vector<probes::Probe>& probes,
                                const RunOptions& options) {
  const auto run_start = Clock::now();
  const auto run_deadline = run_start + options.total;
  std::vector<Finding> out;
  std::vector<Pending> pending;
  pending.reserve(probes.size());

  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("runner: pipe failed: ") + std::strerror(errno));

  std::fflush(stdout);
  std::fflush(stderr);
  // Children first: no thread of ours exists yet.
  for (const auto& p : probes) {
    if (p.isolation != probes::Isolation::kChild) continue;
    Pending pd = start_pending(p, run_deadline);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      out.push_back(error_finding(p, std::string("pipe failed: ") + std::strerror(errno), 0));
      continue;
    }
    const pid_t runner_pid = getpid();
    pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      out.push_back(error_finding(p, std::string("fork failed: ") + std::strerror(errno), 0));
      continue;
    }
    if (pid == 0) {
      close(fds[0]);
      close(wake[0]);
      close(wake[1]);
      // A child probe never outlives the run: if hnprecheck itself is killed
      // (a Prolog timeout), SIGTERM lets the probe stop its work and clean up.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != runner_pid) _exit(0);
      // A child stuck in the kernel may outlive its SIGKILL until the driver
      // answers: it must not hold the caller's stdout/stderr (a Prolog
      // wrapper or `$(hnprecheck node)` would wait for it), nor any other
      // descriptor but its result pipe.
      // Move the result pipe above stdio first (it is 0-2 only when the
      // caller started us with stdio closed), then replace stdio.
      int result_fd = fds[1] > 2 ? fds[1] : fcntl(fds[1], F_DUPFD_CLOEXEC, 3);
      if (int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC); null_fd >= 0) {
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        if (null_fd > 2 && null_fd != result_fd) close(null_fd);
      }
      if (result_fd > 3) close_range(3, static_cast<unsigned>(result_fd - 1), 0);
      close_range(static_cast<unsigned>(result_fd + 1), ~0u, 0);
      child_main(p, result_fd, pd.deadline);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    pd.pid = pid;
    pd.fd = fds[0];
    pending.push_back(std::move(pd));
  }

  for (const auto& p : probes) {
    if (p.isolation != probes::Isolation::kInProcess) continue;
    Pending pd = start_pending(p, run_deadline);
    pd.result = std::make_shared<ThreadResult>();
    // The thread owns copies of what it needs: if it outlives its deadline,
    // it must not touch the runner's stack or the probe list.
    std::thread([run = p.run, res = pd.result, wfd = wake[1]]() {
      std::vector<Finding> f;
      std::string err;
      try {
        f = run();
      } catch (const std::exception& e) {
        err = e.what();
      } catch (...) {
        err = "unknown exception";
      }
      {
        std::lock_guard<std::mutex> lock(res->mu);
        res->findings = std::move(f);
        res->error = std::move(err);
        res->done = true;
      }
      char b = 1;
      ssize_t ignored = write(wfd, &b, 1);
      (void)ignored;
    }).detach();
    pending.push_back(std::move(pd));
  }

  std::vector<pid_t> killed;
  size_t open = pending.size();
  while (open > 0) {
    // Harvest finished threads and expired deadlines.
    auto now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    std::vector<pollfd> pfds;
    std::vector<size_t> owners;
    pfds.push_back({wake[0], POLLIN, 0});
    owners.push_back(SIZE_MAX);
    for (size_t i = 0; i < pending.size(); ++i) {
      Pending& pd = pending[i];
      if (pd.finished) continue;
      double elapsed = ms_since(pd.start);
      if (pd.result) {
        std::lock_guard<std::mutex> lock(pd.result->mu);
        if (pd.result->done) {
          if (!pd.result->error.empty()) {
            out.push_back(error_finding(*pd.probe, pd.result->error, elapsed));
          } else {
            for (auto& f : pd.result->findings) {
              if (f.duration_ms == 0) f.duration_ms = elapsed;
              out.push_back(std::move(f));
            }
          }
          pd.finished = true;
          --open;
          continue;
        }
      }
      if (now >= pd.deadline) {
        if (pd.pid > 0) {
          kill(pd.pid, SIGKILL);
          if (!pd.eof) close(pd.fd);
          killed.push_back(pd.pid);
          out.push_back(timeout_finding(*pd.probe, pd.budget, pd.cut_by_run, "killed", elapsed));
        } else {
          g_threads_abandoned.store(true);
          out.push_back(timeout_finding(*pd.probe, pd.budget, pd.cut_by_run, "abandoned", elapsed));
        }
        pd.finished = true;
        --open;
        continue;
      }
      if (pd.pid > 0 && pd.eof) {
        int status = 0;
        if (waitpid(pd.pid, &status, WNOHANG) == pd.pid) {
          finish_child(pd, status, out);
          pd.finished = true;
          --open;
          continue;
        }
        // Output is complete but the child has not exited yet: look again soon.
        next = std::min(next, now + std::chrono::milliseconds(1));
        continue;
      }
      next = std::min(next, pd.deadline);
      if (pd.pid > 0) {
        pfds.push_back({pd.fd, POLLIN, 0});
        owners.push_back(i);
      }
    }
    if (open == 0) break;
    int wait_ms =
        static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count());
    int n = poll(pfds.data(), pfds.size(), std::max(wait_ms, 0));
    if (n < 0 && errno != EINTR)
      throw std::runtime_error(std::string("runner: poll failed: ") + std::strerror(errno));
    if (n <= 0) continue;
    if (pfds[0].revents) {
      char buf[64];
      while (read(wake[0], buf, sizeof buf) > 0) {
      }
    }
    for (size_t k = 1; k < pfds.size(); ++k) {
      if (!pfds[k].revents) continue;
      Pending& pd = pending[owners[k]];
      char buf[65536];
      for (;;) {
        ssize_t r = read(pd.fd, buf, sizeof buf);
        if (r > 0) {
          pd.output.append(buf, static_cast<size_t>(r));
          continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) break;
        close(pd.fd);  // EOF (or a read error): the child is done writing
        pd.eof = true;
        break;
      }
    }
  }
  close(wake[0]);
  reap_briefly(killed);
  // wake[1] stays open: an abandoned thread may still write to it. The fd is
  // released at exit; leaking one descriptor per run is the price of never
  // blocking on a stuck probe.
  return out;
}

}  // namespace hn::preflight
