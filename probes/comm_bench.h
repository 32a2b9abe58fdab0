#pragma once
// The nccl-tests style sweep behind `hnprecheck bench`: one descriptor per
// collective and one driver. For every size it times `iters` back-to-back
// calls after `warmup` (the slowest rank's mean is reported), then, apart
// from timing, runs the collective once more on closed-form inputs and counts
// the wrong elements on every rank (summed over ranks).
//
// Sizes follow nccl-tests: `bytes` is what one rank sees in total (allgather:
// the gathered buffer; reducescatter: the input; alltoall: the whole buffer),
// rounded down to whole elements per rank. algbw = bytes / time;
// busbw = algbw * factor: allreduce 2(n-1)/n, reducescatter/allgather/alltoall
// (n-1)/n, broadcast/reduce/sendrecv 1. Rates in GB/s (1e9 bytes).
// Throws comm::CommError subclasses from the collectives.

#include <cstddef>
#include <string>
#include <vector>

#include "stack/l3_comm/collectives.h"

namespace hn::probes {

enum class BenchOp {
  kAllreduce,
  kReduceScatter,
  kAllgather,
  kBroadcast,
  kReduce,
  kAlltoall,
  kSendRecv
};

std::string_view to_string(BenchOp op);
BenchOp bench_op_from_string(std::string_view s);  // throws std::invalid_argument listing the names

struct BenchConfig {
  BenchOp op = BenchOp::kAllreduce;
  std::size_t min_bytes = 8, max_bytes = 256u << 20;
  double factor = 2;
  int iters = 20, warmup = 5;
  bool check = true;
  stack::comm::Options options;  // dtype, redop, algorithm, root, timeout
};

struct BenchRow {
  std::size_t bytes = 0;  // nccl-tests "size"
  std::size_t count = 0;  // elements per rank buffer (nccl-tests "count")
  double time_us = 0;
  double algbw = 0, busbw = 0;  // GB/s
  long long wrong = -1;         // -1: not checked
};

// The sizes of the sweep, as nccl-tests steps them: min, min*factor, ...
// while they are <= max (max itself only when the sequence lands on it; a
// factor <= 1 gives min alone). At most kMaxSweepSizes + 1 sizes: a longer
// sweep is cut, so callers that take user input check it first.
inline constexpr std::size_t kMaxSweepSizes = 4096;
std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor);

double bus_factor(BenchOp op, int ranks);

// Runs the whole sweep on every rank (a collective call: all ranks together).
std::vector<BenchRow> run_bench(stack::comm::Communicator& comm, const BenchConfig& cfg);

}  // namespace hn::probes
