#include "probes/comm_bench.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "probes/comm_bench_values.h"

namespace hn::probes {

namespace comm = stack::comm;
namespace bv = bench_values;
using stack::op::DType;
using stack::op::ReduceOp;

namespace {

// One descriptor per collective (nccl-tests' testColl): buffer shapes in
// elements for a per-rank count, and how to run, fill and check it.
struct Shape {
  std::size_t in, out;
};

Shape shape(BenchOp op, std::size_t count, int n) {
  const auto un = static_cast<std::size_t>(n);
  switch (op) {
    case BenchOp::kReduceScatter:
      return {count * un, count};
    case BenchOp::kAllgather:
      return {count, count * un};
    case BenchOp::kAlltoall:
      return {count * un, count * un};
    default:
      return {count, count};
  }
}

// Elements per rank for nccl-tests' "size" in bytes.
std::size_t count_for(BenchOp op, std::size_t bytes, int n, std::size_t esz) {
  bool split =
      op == BenchOp::kReduceScatter || op == BenchOp::kAllgather || op == BenchOp::kAlltoall;
  return bytes / esz / (split ? static_cast<std::size_t>(n) : 1);
}

std::size_t bytes_for(BenchOp op, std::size_t count, int n, std::size_t esz) {
  bool split =
      op == BenchOp::kReduceScatter || op == BenchOp::kAllgather || op == BenchOp::kAlltoall;
  return count * esz * (split ? static_cast<std::size_t>(n) : 1);
}

void run_once(comm::Communicator& c, BenchOp op, const void* in, void* out, std::size_t count,
              const comm::Options& o) {
  const int n = c.size(), r = c.rank();
  switch (op) {
    case BenchOp::kAllreduce:
      comm::allreduce(c, in, out, count, o);
      return;
    case BenchOp::kReduceScatter:
      comm::reduce_scatter(c, in, out, count, o);
      return;
    case BenchOp::kAllgather:
      comm::allgather(c, in, out, count, o);
      return;
    case BenchOp::kBroadcast:
      comm::broadcast(c, out, count, o);
      return;  // root's out holds the data
    case BenchOp::kReduce:
      comm::reduce(c, in, out, count, o);
      return;
    case BenchOp::kAlltoall:
      comm::alltoall(c, in, out, count, o);
      return;
    case BenchOp::kSendRecv:
      if (n == 1) {
        if (count) std::memcpy(out, in, count * stack::op::dtype_size(o.dtype));
        return;
      }
      comm::sendrecv(c, in, (r + 1) % n, out, (r + n - 1) % n, count, o);
      return;
  }
}

bool reducing(BenchOp op) {
  return op == BenchOp::kAllreduce || op == BenchOp::kReduceScatter || op == BenchOp::kReduce;
}

void fill(BenchOp op, const comm::Options& o, int r, int n, void* in, std::size_t count) {
  Shape s = shape(op, count, n);
  if (reducing(op)) {
    for (std::size_t i = 0; i < s.in; ++i) bv::put(o.dtype, in, i, bv::input(o.op, r, n, i));
  } else if (op == BenchOp::kAlltoall) {
    for (int j = 0; j < n; ++j)
      for (std::size_t i = 0; i < count; ++i)
        bv::put(o.dtype, in, j * count + i, bv::tag(1LL * r * n + j, i));
  } else {
    for (std::size_t i = 0; i < s.in; ++i) bv::put(o.dtype, in, i, bv::tag(r, i));
  }
}

long long count_wrong(BenchOp op, const comm::Options& o, int r, int n, const void* out,
                      std::size_t count) {
  long long wrong = 0;
  auto expect = [&](std::size_t idx, double want, ReduceOp cmp_op) {
    if (!bv::same(o.dtype, cmp_op, bv::get(o.dtype, out, idx), want)) ++wrong;
  };
  switch (op) {
    case BenchOp::kAllreduce:
      for (std::size_t i = 0; i < count; ++i) expect(i, bv::reduced(o.op, o.dtype, n, i), o.op);
      break;
    case BenchOp::kReduce:
      if (r == o.root)
        for (std::size_t i = 0; i < count; ++i) expect(i, bv::reduced(o.op, o.dtype, n, i), o.op);
      break;
    case BenchOp::kReduceScatter:
      for (std::size_t j = 0; j < count; ++j)
        expect(j, bv::reduced(o.op, o.dtype, n, r * count + j), o.op);
      break;
    case BenchOp::kAllgather:
      for (int j = 0; j < n; ++j)
        for (std::size_t i = 0; i < count; ++i)
          expect(j * count + i, bv::tag(j, i), ReduceOp::kSum);
      break;
    case BenchOp::kBroadcast:
      for (std::size_t i = 0; i < count; ++i) expect(i, bv::tag(o.root, i), ReduceOp::kSum);
      break;
    case BenchOp::kAlltoall:
      for (int j = 0; j < n; ++j)
        for (std::size_t i = 0; i < count; ++i)
          expect(j * count + i, bv::tag(1LL * j * n + r, i), ReduceOp::kSum);
      break;
    case BenchOp::kSendRecv:
      for (std::size_t i = 0; i < count; ++i)
        expect(i, bv::tag((r + n - 1) % n, i), ReduceOp::kSum);
      break;
  }
  return wrong;
}

// Every rank gets the maximum (time) or the sum (wrong counts).
double max_over_ranks(comm::Communicator& c, double v) {
  comm::Options o;
  o.dtype = DType::kF64;
  o.op = ReduceOp::kMax;
  double out = v;
  comm::allreduce(c, &v, &out, 1, o);
  return out;
}

long long sum_over_ranks(comm::Communicator& c, long long v) {
  comm::Options o;
  o.dtype = DType::kI64;
  o.op = ReduceOp::kSum;
  std::int64_t in = v, out = 0;
  comm::allreduce(c, &in, &out, 1, o);
  return out;
}

}  // namespace

std::string_view to_string(BenchOp op) {
  switch (op) {
    case BenchOp::kAllreduce:
      return "allreduce";
    case BenchOp::kReduceScatter:
      return "reducescatter";
    case BenchOp::kAllgather:
      return "allgather";
    case BenchOp::kBroadcast:
      return "broadcast";
    case BenchOp::kReduce:
      return "reduce";
    case BenchOp::kAlltoall:
      return "alltoall";
    case BenchOp::kSendRecv:
      return "sendrecv";
  }
  return "?";
}

BenchOp bench_op_from_string(std::string_view s) {
  for (BenchOp op : {BenchOp::kAllreduce, BenchOp::kReduceScatter, BenchOp::kAllgather,
                     BenchOp::kBroadcast, BenchOp::kReduce, BenchOp::kAlltoall, BenchOp::kSendRecv})
    if (to_string(op) == s) return op;
  throw std::invalid_argument(
      "unknown collective '" + std::string(s) +
      "' (expected allreduce, reducescatter, allgather, broadcast, reduce, alltoall or sendrecv)");
}

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor) {
  std::vector<std::size_t> out;
  double s = static_cast<double>(min_bytes);
  while (s <= static_cast<double>(max_bytes) + 0.5) {
    out.push_back(static_cast<std::size_t>(s));
    if (factor <= 1 || out.size() > kMaxSweepSizes) break;
    double next = std::max(s * factor, s + 1);
    s = next;
  }
  return out;
}

double bus_factor(BenchOp op, int n) {
  switch (op) {
    case BenchOp::kAllreduce:
      return 2.0 * (n - 1) / n;
    case BenchOp::kReduceScatter:
    case BenchOp::kAllgather:
    case BenchOp::kAlltoall:
      return static_cast<double>(n - 1) / n;
    default:
      return 1;
  }
}

std::vector<BenchRow> run_bench(comm::Communicator& c, const BenchConfig& cfg) {
  using Clock = std::chrono::steady_clock;
  const int n = c.size(), r = c.rank();
  const std::size_t esz = stack::op::dtype_size(cfg.options.dtype);
  std::vector<BenchRow> rows;
  std::vector<std::byte> in, out;
  for (std::size_t size : sweep_sizes(cfg.min_bytes, cfg.max_bytes, cfg.factor)) {
    BenchRow row;
    row.count = count_for(cfg.op, size, n, esz);
    row.bytes = bytes_for(cfg.op, row.count, n, esz);
    Shape s = shape(cfg.op, row.count, n);
    in.resize(s.in * esz + 1);
    out.resize(s.out * esz + 1);
    fill(cfg.op, cfg.options, r, n, in.data(), row.count);
    auto seed_root = [&] {  // broadcast runs in place on `out`
      if (cfg.op == BenchOp::kBroadcast && r == cfg.options.root && row.count)
        std::memcpy(out.data(), in.data(), row.count * esz);
    };
    seed_root();
    for (int i = 0; i < cfg.warmup; ++i)
      run_once(c, cfg.op, in.data(), out.data(), row.count, cfg.options);
    comm::barrier(c);
    auto t0 = Clock::now();
    for (int i = 0; i < cfg.iters; ++i)
      run_once(c, cfg.op, in.data(), out.data(), row.count, cfg.options);
    double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() /
                std::max(cfg.iters, 1);
    row.time_us = max_over_ranks(c, us);
    row.algbw = row.time_us > 0 ? static_cast<double>(row.bytes) / (row.time_us * 1e3) : 0;
    row.busbw = row.algbw * bus_factor(cfg.op, n);
    if (cfg.check) {
      // Correctness apart from timing: fresh inputs, a poisoned output.
      std::memset(out.data(), 0xa5, out.size());
      seed_root();
      run_once(c, cfg.op, in.data(), out.data(), row.count, cfg.options);
      row.wrong = sum_over_ranks(c, count_wrong(cfg.op, cfg.options, r, n, out.data(), row.count));
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace hn::probes
