#pragma once
// The nccl-tests style sweep behind `hnprecheck bench`: one driver over the
// collective descriptors of comm_bench_colls.h. For every size it times
// `iters` back-to-back calls after `warmup` (at least 2 unless 0: one per
// input buffer; the slowest rank's mean is reported) and verifies the
// results (unless `check` is off):
//
//   * every call gets its own inputs (bench_values: unique per rank, element
//     and call; the calls alternate between two input buffers, so no call
//     sees the inputs of the one before it);
//   * every warm-up and timed call is spot-checked: a few output elements
//     (first, last, and one in each of kSpotChecks - 2 equal segments) are
//     compared with their closed-form values right after the call, which
//     costs a few loads;
//   * apart from timing, one more call on fresh inputs into a poisoned output
//     is checked in full;
//   * with fresh_inputs, every warm-up and timed call has inputs of its own
//     and its whole output is checked (a stale buffer cannot pass).
//
// #wrong is the number of wrong elements (full check plus spot checks),
// summed over ranks. The bench's own bookkeeping collectives (barrier, max of
// the times, sum of #wrong) run under comm::testing::FaultPause, so a
// test-only fault (fault_injection.h) corrupts only the collective measured.
//
// Sizes follow nccl-tests: `bytes` is what one rank sees in total (allgather:
// the gathered buffer; reducescatter: the input; alltoall: the whole buffer),
// rounded down to whole elements per rank. algbw = bytes / time;
// busbw = algbw * the descriptor's bus factor. Rates in GB/s (1e9 bytes).
// Throws comm::CommError subclasses from the collectives.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "drivers/comm_bench_colls.h"
#include "stack/l3_comm/collectives.h"

namespace hn::drivers {

inline constexpr std::size_t kSpotChecks = 16;  // elements checked per call

struct BenchConfig {
  BenchOp op = BenchOp::kAllreduce;
  std::size_t min_bytes = 8, max_bytes = 256u << 20;
  double factor = 2;
  int iters = 20, warmup = 5;
  bool check = true;
  // The buffers come from Communicator::alloc_window (on shm the allreduce
  // then reads the peers' buffers in place); false: private heap memory, as
  // a framework's tensors are.
  bool window_buffers = true;
  // Training's pattern (bench --fresh-inputs): before every warm-up and timed
  // call each rank writes its whole input anew (unique per rank, element and
  // call), and after it reads its whole output, checking every element, as a
  // backward pass writes gradients and an optimizer step reads them. Only the
  // collective itself is timed (per call, from a barrier after the writes, so
  // a slower writer's fill is not counted; summed); the writes and reads run
  // outside the timed region, so a path that serves a call from data the
  // previous one left in a core's cache gets no help from it.
  bool fresh_inputs = false;
  stack::comm::Options options;  // dtype, redop, algorithm, root, timeout
  // When set, no measured call outlives it: each call's timeout is the time
  // left (options.timeout still caps it), so a sweep of many calls ends by the
  // caller's deadline (certify's phase) with a TimeoutError rather than
  // granting every call the whole budget again.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

struct BenchRow {
  std::size_t bytes = 0;  // nccl-tests "size"
  std::size_t count = 0;  // elements per rank buffer (nccl-tests "count")
  double time_us = 0;
  double algbw = 0, busbw = 0;  // GB/s
  long long wrong = -1;         // -1: not checked
  long long wrong_spot = -1;    // of `wrong`, found by spot checks of warm-up and timed calls
};

// The sizes min, min*factor, ... up to max; at most kMaxSweepSizes + 1 of
// them (a longer sweep is cut; callers that take user input check first).
inline constexpr std::size_t kMaxSweepSizes = 4096;
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor);

double bus_factor(BenchOp op, int ranks);

// Runs the whole sweep on every rank (a collective call: all ranks together).
std::vector<BenchRow> run_bench(stack::comm::Communicator& comm, const BenchConfig& cfg);

}  // namespace hn::drivers
