#include "stack/l7_physical/io_workload.h"

#include "stack/l7_physical/io_phases.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace hn::stack::physical {

namespace {

using Clock = std::chrono::steady_clock;
using detail::Phase;
using detail::ThreadOut;

// Runs body on cfg.threads threads (inline for one) and rethrows the first
// error after every thread has stopped.
template <typename Body>
std::vector<ThreadOut> fan_out(int threads, std::atomic<bool>& stop, Body body) {
  std::vector<ThreadOut> outs(static_cast<std::size_t>(threads));
  std::exception_ptr first;
  std::mutex mu;
  auto guarded = [&](int t) {
    try {
      body(t, outs[static_cast<std::size_t>(t)]);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!first) first = std::current_exception();
      stop = true;
    }
  };
  if (threads == 1) {
    guarded(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(guarded, t);
    for (auto& th : pool) th.join();
  }
  if (first) std::rethrow_exception(first);
  return outs;
}

std::string phase_step(Workload w, const WorkloadConfig& c, const std::string& dir) {
  std::string block = std::to_string(c.block_bytes) + " B";
  switch (w) {
    case Workload::kSyncWrite:
      return std::string("sync_write: ") +
             (c.sync == SyncMode::kDsync ? "O_DSYNC pwrite" : "pwrite+fsync") + " of " + block +
             " blocks in " + dir;
    case Workload::kRandomRead:
      return "random_read: pread of " + block + " blocks in " + dir;
    case Workload::kMetadata:
      return "metadata: create/stat/unlink in " + dir;
    case Workload::kCheckpoint:
      return "checkpoint: sequential write+fsync then read in " + dir;
  }
  return "";
}

}  // namespace

std::string_view to_string(Workload w) {
  switch (w) {
    case Workload::kSyncWrite:
      return "sync_write";
    case Workload::kRandomRead:
      return "random_read";
    case Workload::kMetadata:
      return "metadata";
    case Workload::kCheckpoint:
      return "checkpoint";
  }
  return "?";
}

Workload workload_from_string(std::string_view s) {
  for (Workload w :
       {Workload::kSyncWrite, Workload::kRandomRead, Workload::kMetadata, Workload::kCheckpoint})
    if (to_string(w) == s) return w;
  throw std::invalid_argument("unknown workload '" + std::string(s) +
                              "' (expected sync_write, random_read, metadata or checkpoint)");
}

std::vector<WorkloadResult> run_workloads(
    const WorkloadConfig& cfg, const std::string& dir, const StepFn& step,
    const std::function<void(const WorkloadResult&)>& on_done) {
  if (cfg.threads < 1 || cfg.block_bytes == 0 || cfg.workloads.empty())
    throw std::invalid_argument("run_workloads: threads, block and workloads must be positive");
  int writers = 0;
  for (Workload w : cfg.workloads) writers += w != Workload::kMetadata;
  const std::uint64_t bytes_share =
      cfg.max_bytes / static_cast<std::uint64_t>(std::max(writers, 1));
  const auto time_share = std::chrono::duration_cast<Clock::duration>(
      cfg.duration / static_cast<double>(cfg.workloads.size()));

  std::vector<WorkloadResult> results;
  for (Workload w : cfg.workloads) {
    step(phase_step(w, cfg, dir));
    std::atomic<bool> stop{false};
    auto start = Clock::now();
    Phase ph{cfg, dir, start + time_share,
             std::max<std::uint64_t>(bytes_share / static_cast<std::uint64_t>(cfg.threads), 1),
             stop};
    auto write_deadline = start + time_share / 2;
    auto outs = fan_out(cfg.threads, stop, [&](int t, ThreadOut& o) {
      switch (w) {
        case Workload::kSyncWrite:
          detail::sync_write(ph, t, o);
          break;
        case Workload::kRandomRead:
          detail::random_read(ph, t, o);
          break;
        case Workload::kMetadata:
          detail::metadata(ph, t, o);
          break;
        case Workload::kCheckpoint:
          detail::checkpoint(ph, t, o, write_deadline);
          break;
      }
    });
    WorkloadResult r;
    r.workload = w;
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.direct = !outs.empty();
    bool by_bytes = false;
    for (const auto& o : outs) {
      r.latency.merge(o.latency);
      r.ops += o.ops;
      r.bytes_written += o.written;
      r.bytes_read += o.read;
      r.direct = r.direct && o.direct;
      by_bytes = by_bytes || o.by_bytes;
      r.write_seconds = std::max(r.write_seconds, o.write_seconds);
      r.read_seconds = std::max(r.read_seconds, o.read_seconds);
    }
    if (w != Workload::kRandomRead && w != Workload::kCheckpoint) r.direct = false;
    r.stopped_by = by_bytes ? "bytes" : "time";
    if (w == Workload::kCheckpoint) {
      r.stopped_by = by_bytes ? "done" : "time";
      r.requested_bytes = cfg.checkpoint_bytes;
      r.max_bytes_share = bytes_share;
      if (r.write_seconds > 0) r.write_mbps = r.bytes_written / r.write_seconds / 1e6;
      if (r.read_seconds > 0) r.read_mbps = r.bytes_read / r.read_seconds / 1e6;
    }
    if (on_done) on_done(r);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace hn::stack::physical
