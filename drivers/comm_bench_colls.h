#pragma once
// One descriptor per collective the bench runs (nccl-tests' testColl): its
// buffer shapes, its bus factor, how to run it, and its closed-form input and
// expected output. The bench driver (comm_bench.cc) knows nothing else about
// a collective, so adding one is adding a row to the table in
// comm_bench_colls.cc.
//
// Shapes are in elements for a per-rank `count`: a buffer holds count or
// count * ranks elements (`in_per_rank`, `out_per_rank`), and nccl-tests'
// "size" is count * esz, times ranks when `size_per_rank`.

#include <cstddef>
#include <span>
#include <string_view>

#include "drivers/comm_bench_values.h"
#include "stack/l3_comm/collectives.h"

namespace hn::drivers {

enum class BenchOp {
  kAllreduce,
  kReduceScatter,
  kAllgather,
  kBroadcast,
  kReduce,
  kAlltoall,
  kSendRecv
};

// Where one call of one collective stands: the values of this call, this
// rank, the world, the root and the per-rank count.
struct BenchCall {
  const bench_values::Values& values;
  int rank, ranks, root;
  std::size_t count;
};

struct BenchColl {
  BenchOp op;
  std::string_view name;
  bool reduces;  // takes --redop
  bool in_per_rank, out_per_rank, size_per_rank;
  // busbw = algbw * bus_factor(ranks) (nccl-tests' doc/PERFORMANCE.md).
  double (*bus_factor)(int ranks);
  // Runs the collective once. `in` holds the input (the root's data for
  // broadcast, which runs in place on it); `out` receives the result.
  void (*run)(stack::comm::Communicator& c, void* in, void* out, std::size_t count,
              const stack::comm::Options& o);
  double (*input)(const BenchCall& call, std::size_t element);
  // This rank checks output elements [0, checked(call)): all of them, or none
  // where the collective leaves the output unspecified (reduce off the root,
  // broadcast on the root, whose buffer is its input).
  std::size_t (*checked)(const BenchCall& call);
  double (*expected)(const BenchCall& call, std::size_t element);
  // Optional batch forms: elements [lo, lo + n) of input and expected into
  // out[0, n), equal to the per-element forms (bench_values' batch forms);
  // null where the per-element form is all there is.
  void (*inputs)(const BenchCall& call, std::size_t lo, std::size_t n, double* out);
  void (*expecteds)(const BenchCall& call, std::size_t lo, std::size_t n, double* out);

  // The batch forms, falling back to the per-element ones.
  void input_range(const BenchCall& call, std::size_t lo, std::size_t n, double* out) const {
    if (inputs) return inputs(call, lo, n, out);
    for (std::size_t j = 0; j < n; ++j) out[j] = input(call, lo + j);
  }
  void expected_range(const BenchCall& call, std::size_t lo, std::size_t n, double* out) const {
    if (expecteds) return expecteds(call, lo, n, out);
    for (std::size_t j = 0; j < n; ++j) out[j] = expected(call, lo + j);
  }

  std::size_t in_elems(std::size_t count, int ranks) const {
    return in_per_rank ? count * static_cast<std::size_t>(ranks) : count;
  }
  std::size_t out_elems(std::size_t count, int ranks) const {
    return out_per_rank ? count * static_cast<std::size_t>(ranks) : count;
  }
  // Elements per rank for nccl-tests' size in bytes (rounded down), and back.
  std::size_t count_for(std::size_t bytes, int ranks, std::size_t esz) const {
    return bytes / esz / (size_per_rank ? static_cast<std::size_t>(ranks) : 1);
  }
  std::size_t bytes_for(std::size_t count, int ranks, std::size_t esz) const {
    return count * esz * (size_per_rank ? static_cast<std::size_t>(ranks) : 1);
  }
};

// The descriptor of op; every BenchOp has one.
const BenchColl& bench_coll(BenchOp op);
// All of them, in BenchOp order.
std::span<const BenchColl> bench_colls();

std::string_view to_string(BenchOp op);
BenchOp bench_op_from_string(std::string_view s);  // throws std::invalid_argument listing the names

}  // namespace hn::drivers
