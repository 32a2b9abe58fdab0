#include "drivers/comm_bench_colls.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace hn::drivers {

namespace comm = stack::comm;

namespace {

using Call = BenchCall;

std::size_t all(const Call& c) {
  return c.count;
}
std::size_t all_blocks(const Call& c) {
  return c.count * static_cast<std::size_t>(c.ranks);
}
double two_n1_n(int n) {
  return 2.0 * (n - 1) / n;
}
double n1_n(int n) {
  return static_cast<double>(n - 1) / n;
}
double one(int) {
  return 1;
}
double reduced_input(const Call& c, std::size_t e) {
  return c.values.input(c.rank, e);
}
double own_tag(const Call& c, std::size_t e) {
  return c.values.tag(static_cast<std::uint64_t>(c.rank), e);
}
double reduced(const Call& c, std::size_t e) {
  return c.values.reduced(e);
}
void reduced_inputs(const Call& c, std::size_t lo, std::size_t n, double* out) {
  c.values.inputs(c.rank, lo, n, out);
}
void reduceds(const Call& c, std::size_t lo, std::size_t n, double* out) {
  c.values.reduceds(lo, n, out);
}
// alltoall: block j of rank r's input goes to rank j; sources r*n+j are all distinct.
std::uint64_t a2a_source(int from, int to, int n) {
  return static_cast<std::uint64_t>(from) * static_cast<std::uint64_t>(n) +
         static_cast<std::uint64_t>(to);
}

const BenchColl kColls[] = {
    {BenchOp::kAllreduce, "allreduce", true, false, false, false, two_n1_n,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       comm::allreduce(c, in, out, n, o);
     },
     reduced_input, all, reduced, reduced_inputs, reduceds},
    {BenchOp::kReduceScatter, "reducescatter", true, true, false, true, n1_n,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       comm::reduce_scatter(c, in, out, n, o);
     },
     reduced_input, all,
     [](const Call& c, std::size_t e) {
       return c.values.reduced(static_cast<std::size_t>(c.rank) * c.count + e);
     },
     reduced_inputs,
     [](const Call& c, std::size_t lo, std::size_t n, double* out) {
       c.values.reduceds(static_cast<std::size_t>(c.rank) * c.count + lo, n, out);
     }},
    {BenchOp::kAllgather, "allgather", false, false, true, true, n1_n,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       comm::allgather(c, in, out, n, o);
     },
     own_tag, all_blocks,
     [](const Call& c, std::size_t e) { return c.values.tag(e / c.count, e % c.count); }, nullptr,
     nullptr},
    {BenchOp::kBroadcast, "broadcast", false, false, false, false, one,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       comm::broadcast(c, c.rank() == o.root ? in : out, n, o);
     },
     own_tag, [](const Call& c) { return c.rank == c.root ? std::size_t{0} : c.count; },
     [](const Call& c, std::size_t e) {
       return c.values.tag(static_cast<std::uint64_t>(c.root), e);
     },
     nullptr, nullptr},
    {BenchOp::kReduce, "reduce", true, false, false, false, one,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       comm::reduce(c, in, out, n, o);
     },
     reduced_input, [](const Call& c) { return c.rank == c.root ? c.count : std::size_t{0}; },
     reduced, reduced_inputs, reduceds},
    {BenchOp::kAlltoall, "alltoall", false, true, true, true, n1_n,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       comm::alltoall(c, in, out, n, o);
     },
     [](const Call& c, std::size_t e) {
       const int to = static_cast<int>(e / c.count);
       return c.values.tag(a2a_source(c.rank, to, c.ranks), e % c.count);
     },
     all_blocks,
     [](const Call& c, std::size_t e) {
       const int from = static_cast<int>(e / c.count);
       return c.values.tag(a2a_source(from, c.rank, c.ranks), e % c.count);
     },
     nullptr, nullptr},
    {BenchOp::kSendRecv, "sendrecv", false, false, false, false, one,
     [](comm::Communicator& c, void* in, void* out, std::size_t n, const comm::Options& o) {
       const int ranks = c.size(), r = c.rank();
       if (ranks == 1) {
         if (n) std::memcpy(out, in, n * stack::op::dtype_size(o.dtype));
         return;
       }
       comm::sendrecv(c, in, (r + 1) % ranks, out, (r + ranks - 1) % ranks, n, o);
     },
     own_tag, all,
     [](const Call& c, std::size_t e) {
       return c.values.tag(static_cast<std::uint64_t>((c.rank + c.ranks - 1) % c.ranks), e);
     },
     nullptr, nullptr},
};

}  // namespace

std::span<const BenchColl> bench_colls() {
  return kColls;
}

const BenchColl& bench_coll(BenchOp op) {
  for (const auto& c : kColls)
    if (c.op == op) return c;
  throw std::logic_error("no bench descriptor for a collective");
}

std::string_view to_string(BenchOp op) {
  return bench_coll(op).name;
}

BenchOp bench_op_from_string(std::string_view s) {
  std::string names;
  for (const auto& c : kColls) {
    if (c.name == s) return c.op;
    names += (names.empty() ? "" : ", ") + std::string(c.name);
  }
  throw std::invalid_argument("unknown collective '" + std::string(s) + "' (expected " + names +
                              ")");
}

}  // namespace hn::drivers
