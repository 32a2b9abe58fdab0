#include "preflight/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "reports/catalog.h"
#include "reports/json_report.h"
#include "stack/isolation/child_process.h"

namespace hn::preflight {

using Clock = std::chrono::steady_clock;
using reports::Finding;
using reports::Status;
namespace isolation = stack::isolation;

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
  isolation::Child child;   // child probes
  std::shared_ptr<ThreadResult> result;  // in-process probes
  bool finished = false;
};

// One call of run_probes: what is running, what came out, what was killed.
struct Run {
  Clock::time_point deadline;
  std::vector<Pending> pending;
  std::vector<Finding> out;
  std::vector<isolation::Child> killed;
  size_t open = 0;
  int wake[2] = {-1, -1};  // in-process probes write a byte when they finish
};

std::atomic<bool> g_threads_abandoned{false};

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

// Runs in the forked child: findings as a JSON array, or {"error": "..."}.
int child_main(const probes::Probe& p, int fd, Clock::time_point kill_at) {
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
  isolation::write_all(fd, out);
  return 0;
}

// Called once the child has exited (reaped with `status`).
void finish_child(const Pending& pd, int status, std::vector<Finding>& out) {
  double elapsed = ms_since(pd.start);
  const auto& p = *pd.probe;
  const std::string& output = pd.child.output();
  if (WIFSIGNALED(status)) {
    out.push_back(
        error_finding(p, "child process ended: " + isolation::describe_status(status), elapsed));
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && output.empty()) {
    out.push_back(error_finding(
        p, "child process ended without reporting findings: " + isolation::describe_status(status),
        elapsed));
    return;
  }
  try {
    auto j = nlohmann::json::parse(output);
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

// Forks every child probe. Runs before any thread of ours exists, so fork
// never copies a half-held lock.
void start_child_probes(Run& run, const std::vector<probes::Probe>& probes) {
  // A child probe never outlives the run: if hnprecheck itself is killed
  // (a Prolog timeout), SIGTERM lets the probe stop its work and clean up
  // (a supervised worker inside it handles that signal). Stdio is
  // /dev/null and only the result pipe stays open (isolation's contract).
  isolation::SpawnOptions options;
  options.parent_death_signal = SIGTERM;
  options.default_signals = false;
  for (const auto& p : probes) {
    if (p.isolation != probes::Isolation::kChild) continue;
    Pending pd = start_pending(p, run.deadline);
    try {
      pd.child = isolation::spawn(options, [&](int fd) { return child_main(p, fd, pd.deadline); });
    } catch (const std::system_error& e) {
      run.out.push_back(
          error_finding(p, std::string("cannot start the child process: ") + e.what(), 0));
      continue;
    }
    run.pending.push_back(std::move(pd));
  }
}

void start_thread_probes(Run& run, const std::vector<probes::Probe>& probes) {
  for (const auto& p : probes) {
    if (p.isolation != probes::Isolation::kInProcess) continue;
    Pending pd = start_pending(p, run.deadline);
    pd.result = std::make_shared<ThreadResult>();
    // The thread owns copies of what it needs: if it outlives its deadline,
    // it must not touch the runner's stack or the probe list.
    std::thread([work = p.run, res = pd.result, wfd = run.wake[1]]() {
      std::vector<Finding> f;
      std::string err;
      try {
        f = work();
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
    run.pending.push_back(std::move(pd));
  }
}

// A finished thread's findings; false while it runs.
bool harvest_thread(Pending& pd, std::vector<Finding>& out) {
  std::lock_guard<std::mutex> lock(pd.result->mu);
  if (!pd.result->done) return false;
  double elapsed = ms_since(pd.start);
  if (!pd.result->error.empty()) {
    out.push_back(error_finding(*pd.probe, pd.result->error, elapsed));
  } else {
    for (auto& f : pd.result->findings) {
      if (f.duration_ms == 0) f.duration_ms = elapsed;
      out.push_back(std::move(f));
    }
  }
  return true;
}

// Settles what can be settled now (a finished thread, a child that exited, a
// deadline passed: SIGKILL for a child, abandonment for a thread). Returns
// the time to look again at a probe still running.
Clock::time_point settle(Run& run, Pending& pd, Clock::time_point now) {
  auto done = [&] {
    pd.finished = true;
    --run.open;
    return Clock::time_point::max();
  };
  if (pd.result && harvest_thread(pd, run.out)) return done();
  if (now >= pd.deadline) {
    const bool is_child = !pd.result;
    run.out.push_back(timeout_finding(*pd.probe, pd.budget, pd.cut_by_run,
                                      is_child ? "killed" : "abandoned", ms_since(pd.start)));
    if (is_child) {
      if (!pd.child.kill()) run.killed.push_back(std::move(pd.child));
    } else {
      g_threads_abandoned.store(true);
    }
    return done();
  }
  if (!pd.result && pd.child.eof()) {
    if (auto status = pd.child.try_reap()) {
      finish_child(pd, *status, run.out);
      return done();
    }
    // Output is complete but the child has not exited yet: look again soon.
    return now + std::chrono::milliseconds(1);
  }
  return pd.deadline;
}

// Waits for every probe: its findings, or its deadline.
void watch(Run& run) {
  run.open = run.pending.size();
  while (run.open > 0) {
    auto now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    std::vector<int> fds{run.wake[0]};
    std::vector<Pending*> owners{nullptr};
    for (auto& pd : run.pending) {
      if (pd.finished) continue;
      next = std::min(next, settle(run, pd, now));
      if (!pd.finished && !pd.result && !pd.child.eof()) {
        fds.push_back(pd.child.fd());
        owners.push_back(&pd);
      }
    }
    if (run.open == 0) break;
    auto ready = isolation::wait_readable(fds, next);
    if (ready[0]) {
      char buf[64];
      while (read(run.wake[0], buf, sizeof buf) > 0) {
      }
    }
    for (size_t k = 1; k < fds.size(); ++k)
      if (ready[k]) owners[k]->child.read_available();
  }
}

}  // namespace

bool threads_abandoned() {
  return g_threads_abandoned.load();
}

std::vector<Finding> run_probes(const std::vector<probes::Probe>& probes,
                                const RunOptions& options) {
  Run run;
  run.deadline = Clock::now() + options.total;
  run.pending.reserve(probes.size());
  if (pipe2(run.wake, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("runner: pipe failed: ") + std::strerror(errno));
  start_child_probes(run, probes);  // children first: no thread of ours exists yet
  start_thread_probes(run, probes);
  try {
    watch(run);
  } catch (...) {
    close(run.wake[0]);
    throw;
  }
  close(run.wake[0]);
  // SIGKILLed children normally die within a millisecond; reap them so a
  // long-lived caller does not collect zombies. One stuck in an unkillable
  // sleep (a hard-mounted NFS server gone) is left behind after 20 ms rather
  // than blocking the run.
  isolation::reap_briefly(run.killed);
  // wake[1] stays open: an abandoned thread may still write to it. The fd is
  // released at exit; leaking one descriptor per run is the price of never
  // blocking on a stuck probe.
  return std::move(run.out);
}

}  // namespace hn::preflight
