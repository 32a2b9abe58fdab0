#pragma once
// The storage jitter workload: what a training job does to shared storage,
// timed operation by operation.
//
//   sync_write   appends `block` bytes and makes them durable: pwrite + fsync
//                (SyncMode::kFsync) or one pwrite on an O_DSYNC descriptor.
//                One sample = the write and its sync.
//   random_read  pread of `block` bytes at a random block-aligned offset of a
//                file written first (read_file_bytes); O_DIRECT when the file
//                system allows it, so the page cache does not hide the storage.
//                One sample = one pread.
//   metadata     create (open O_CREAT|O_EXCL + close), stat, unlink of an empty
//                file. One sample per call.
//   checkpoint   sequential 1 MiB writes of checkpoint_bytes then fsync, then
//                the same bytes read back (O_DIRECT when possible): write and
//                read throughput. One sample per 1 MiB call.
//
// Bounds: the workloads run one after another and share `duration` equally;
// a workload stops when its time share is up. Bytes written are bounded by
// max_bytes, shared equally by the workloads that write data (sync_write,
// random_read's file, checkpoint). With threads > 1 every thread runs the
// workload on its own file and the samples merge into one histogram.
//
// Files live in `dir`, which must exist and belong to this run (a scratch
// directory, fs_ops.h). Every file is unlinked as soon as it is open, so a
// run killed at any point leaves at most `dir` and one metadata file behind.
//
// Contract: blocks as long as the file system does (run it in a killable
// child); throws IoError on the first failing call (other threads stop, the
// run's files are unlinked); `step` is called once per workload phase from
// the calling thread, so a supervisor knows which workload hung.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "stack/l7_physical/fs_ops.h"
#include "stack/l7_physical/latency_histogram.h"

namespace hn::stack::physical {

enum class Workload { kSyncWrite, kRandomRead, kMetadata, kCheckpoint };
std::string_view to_string(Workload w);
// Throws std::invalid_argument for anything but the four names above.
Workload workload_from_string(std::string_view s);

enum class SyncMode { kFsync, kDsync };

struct WorkloadConfig {
  std::vector<Workload> workloads = {Workload::kSyncWrite, Workload::kRandomRead,
                                     Workload::kMetadata, Workload::kCheckpoint};
  std::uint64_t block_bytes = 4096;
  std::chrono::duration<double> duration{3.0};  // the whole run
  std::uint64_t max_bytes = 256ull << 20;       // bytes written by the whole run
  int threads = 1;
  SyncMode sync = SyncMode::kFsync;
  std::uint64_t checkpoint_bytes = 64ull << 20;
  std::uint64_t read_file_bytes = 16ull << 20;
  bool try_direct = true;  // O_DIRECT for reads where the file system supports it
};

struct WorkloadResult {
  Workload workload = Workload::kSyncWrite;
  LatencyHistogram latency;  // nanoseconds, one sample per operation (see above)
  std::uint64_t ops = 0;
  std::uint64_t bytes_written = 0, bytes_read = 0;
  double seconds = 0;      // wall time of the workload
  bool direct = false;     // reads used O_DIRECT
  std::string stopped_by;  // "time", "bytes" or "done"
  // checkpoint: its write half (including the fsync) and read half;
  // random_read: writing its file, and the read loop.
  double write_seconds = 0, read_seconds = 0;
  // checkpoint only: MB/s with MB = 10^6 bytes; write time includes the fsync.
  double write_mbps = 0, read_mbps = 0;
  // checkpoint only: the size asked for (checkpoint_bytes) and this
  // workload's share of max_bytes; the write stops at the smaller of the two
  // (rounded down to whole 4 KiB blocks per thread) or when its time is up.
  std::uint64_t requested_bytes = 0, max_bytes_share = 0;
};

// on_done, when given, sees each workload's result as soon as it is complete.
std::vector<WorkloadResult> run_workloads(
    const WorkloadConfig& config, const std::string& dir, const StepFn& step,
    const std::function<void(const WorkloadResult&)>& on_done = {});

}  // namespace hn::stack::physical
