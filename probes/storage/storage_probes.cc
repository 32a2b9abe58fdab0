#include "probes/storage/storage_probes.h"

#include <unistd.h>

#include <cmath>

#include "drivers/supervised_worker.h"
#include "probes/storage/jitter_check.h"
#include "probes/storage/mount_check.h"
#include "probes/storage/storage_findings.h"
#include "reports/catalog.h"
#include "stack/l7_physical/fs_ops.h"

namespace hn::probes::storage {

namespace physical = stack::physical;
using reports::Finding;
using reports::make_finding;
using reports::Status;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

milliseconds seconds_ms(double s) {
  return milliseconds(static_cast<long long>(std::ceil(s * 1000)));
}

long long ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<milliseconds>(b - a).count();
}

// Runs `work` in a supervised worker that must be done a margin before
// kill_at, turns the way it ended into findings, and removes `scratch_path`
// when the worker could not (killed, crashed, interrupted).
std::vector<Finding> supervise(const std::string& probe_name, const formats::MountSpec& spec,
                               const std::string& scratch_path, Clock::time_point kill_at,
                               const std::function<void(drivers::WorkerChannel&)>& work) {
  const auto start = Clock::now();
  const auto allowance = std::min<Clock::duration>(kCleanupAllowance, (kill_at - start) / 4);
  const auto worker_deadline = kill_at - allowance;
  drivers::SupervisedRun run = drivers::run_supervised(work, worker_deadline);
  std::vector<Finding> out = std::move(run.findings);
  switch (run.end) {
    case drivers::SupervisedRun::End::kCompleted:
      return out;
    case drivers::SupervisedRun::End::kTimedOut:
      break;  // reported below, once the clean-up is done and the time is known
    case drivers::SupervisedRun::End::kInterrupted:
      out.push_back(make_finding(
          "RUN-PROBE-ERROR", Status::kError, probe_name,
          {{"probe", probe_name}, {"reason", "interrupted by a signal during: " + run.last_step}}));
      break;
    case drivers::SupervisedRun::End::kFailed:
      out.push_back(make_finding("RUN-PROBE-ERROR", Status::kError, probe_name,
                                 {{"probe", probe_name}, {"reason", run.failure}}));
      break;
  }
  const auto cleanup_deadline =
      std::min(kill_at - milliseconds(20), Clock::now() + kCleanupAllowance);
  std::string error;
  bool removed = drivers::run_killable(
      [&] { physical::remove_scratch(scratch_path, [](std::string_view) {}); }, cleanup_deadline,
      error);
  if (run.end == drivers::SupervisedRun::End::kTimedOut) {
    // elapsed_ms covers the whole probe, clean-up included: what a hung
    // mount really cost the run (docs/commands/node.md promises timeout_s + 0.5 s).
    const long long elapsed = ms_between(start, Clock::now());
    Finding f = make_finding("STOR-MOUNT-HUNG", Status::kFail, spec.path,
                             {{"path", spec.path},
                              {"op", run.last_step.empty() ? "starting" : run.last_step},
                              {"deadline_ms", std::to_string(ms_between(start, worker_deadline))},
                              {"elapsed_ms", std::to_string(elapsed)},
                              {"probe", probe_name}});
    f.metrics["waited"] = {run.elapsed_ms, "ms"};
    f.metrics["elapsed"] = {static_cast<double>(elapsed), "ms"};
    out.push_back(f);
  }
  if (!removed)
    out.push_back(
        make_finding("STOR-CLEANUP", Status::kWarn, spec.path,
                     {{"path", spec.path}, {"leftover", scratch_path}, {"error", error}}));
  return out;
}

Probe make_probe(const std::string& name, bool live, milliseconds deadline,
                 std::function<std::vector<Finding>(Clock::time_point)> body) {
  Probe p;
  p.name = name;
  p.layer = reports::Layer::kL7;
  p.isolation = live ? Isolation::kChild : Isolation::kInProcess;
  p.deadline = deadline;
  p.run = [body, deadline] { return body(Clock::now() + deadline); };
  if (live) p.run_until = body;
  return p;
}

}  // namespace

std::vector<Finding> run_mount_probe(const NodeContext& ctx, const formats::MountSpec& spec,
                                     Clock::time_point kill_at) {
  if (!ctx.sources.storage) throw std::logic_error("storage probes need NodeSources::storage");
  if (!ctx.sources.live) return check_mount_snapshot(spec, ctx.sources.storage->mounts());
  const std::string host = ctx.sources.hostname;
  const std::string scratch = physical::scratch_name(host, getpid());
  const auto& source = *ctx.sources.storage;
  return supervise(
      "storage.mount " + spec.path, spec, spec.probe_dir + "/" + scratch, kill_at,
      [&](drivers::WorkerChannel& ch) { check_mount_live(spec, source, host, scratch, ch); });
}

std::vector<Finding> run_jitter_probe(const NodeContext& ctx, const formats::MountSpec& spec,
                                      Clock::time_point kill_at) {
  if (!ctx.sources.storage) throw std::logic_error("storage probes need NodeSources::storage");
  if (!ctx.sources.live)
    return {make_finding("STOR-JITTER-LATENCY", Status::kSkip, spec.path,
                         {{"reason", "needs the live mount (replaying a snapshot)"}})};
  const std::string host = ctx.sources.hostname;
  const std::string scratch = physical::scratch_name(host, getpid());
  const auto& source = *ctx.sources.storage;
  const formats::JitterSpec& jitter = ctx.profile->storage.jitter;
  return supervise("storage.jitter " + spec.path, spec, spec.probe_dir + "/" + scratch, kill_at,
                   [&](drivers::WorkerChannel& ch) {
                     run_jitter_live(spec, jitter, source, host, scratch, ch);
                   });
}

std::vector<Probe> storage_probes(std::shared_ptr<const NodeContext> ctx) {
  std::vector<Probe> out;
  const auto& storage = ctx->profile->storage;
  const bool live = ctx->sources.live;
  const bool jitter = storage.jitter_declared || ctx->storage_jitter;
  for (size_t i = 0; i < storage.mounts.size(); ++i) {
    const formats::MountSpec& spec = storage.mounts[i];
    out.push_back(make_probe(
        "storage.mount " + spec.path, live, seconds_ms(spec.timeout_s) + kCleanupAllowance,
        [ctx, i](Clock::time_point kill_at) {
          return run_mount_probe(*ctx, ctx->profile->storage.mounts[i], kill_at);
        }));
    if (!jitter || !spec.jitter) continue;
    out.push_back(
        make_probe("storage.jitter " + spec.path, live,
                   seconds_ms(storage.jitter.duration_s + spec.timeout_s) + kCleanupAllowance,
                   [ctx, i](Clock::time_point kill_at) {
                     return run_jitter_probe(*ctx, ctx->profile->storage.mounts[i], kill_at);
                   }));
  }
  return out;
}

}  // namespace hn::probes::storage
