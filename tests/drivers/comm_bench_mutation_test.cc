// Mutation tests of the bench's verification: with each test-only fault
// (stack/l3_comm/fault_injection.h) switched on, every collective, every
// dtype and every size that holds data reports #wrong > 0; with none, 0.
// Over shm every data path is covered: window buffers (allreduce reads the
// peers' buffers in place, from 4 KiB with 2 ranks and 64 KiB with more),
// private ones (single copy from 64 KiB with 2 ranks and 256 KiB with more,
// the rings below; without single copy the rings and, with 3 ranks or more,
// the staging area), and the flat path of tiny messages (3-4 ranks).
// A stale buffer must also be caught by the spot checks of the timed calls,
// which only works because every call has inputs of its own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "drivers/comm_bench.h"
#include "stack/l3_comm/fault_injection.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::drivers;
namespace comm = hn::stack::comm;
using comm::testing::Fault;
using hn::stack::op::DType;

namespace {

// Window buffers (the bench's default): on shm, allreduce takes the direct
// path (direct_min_bytes); private buffers keep it on the rings.
bool g_window_buffers = true;
// bench --fresh-inputs: new inputs and a full check around every call.
bool g_fresh_inputs = false;

void sweep(comm::Communicator& c) {
  for (Fault f : {Fault::kNone, Fault::kOffByOneChunk, Fault::kStaleBuffer, Fault::kWrongReduceOp,
                  Fault::kDroppedSlice, Fault::kZeroedOutput}) {
    comm::testing::set_fault(c, f);
    for (const BenchColl& coll : bench_colls()) {
      if (f == Fault::kWrongReduceOp && !coll.reduces) continue;
      // Copies move bytes whatever the dtype: their narrowest and widest.
      const std::vector<DType> dtypes =
          coll.reduces ? std::vector<DType>(std::begin(hn::stack::op::kAllDTypes),
                                            std::end(hn::stack::op::kAllDTypes))
                       : std::vector<DType>{DType::kBF16, DType::kF64};
      for (DType dtype : dtypes) {
        BenchConfig cfg;
        cfg.op = coll.op;
        cfg.min_bytes = 8;
        // 8 B .. 256 KiB: both algorithms of each collective; allreduce up to
        // 2 MiB, where the TCP ring runs in 256 KiB slices.
        cfg.max_bytes = coll.op == BenchOp::kAllreduce ? 2 << 20 : 256 << 10;
        cfg.factor = 8;
        cfg.iters = 2;
        cfg.warmup = 1;
        cfg.options.dtype = dtype;
        cfg.window_buffers = g_window_buffers;
        cfg.fresh_inputs = g_fresh_inputs;
        cfg.options.root = c.size() - 1;
        cfg.options.timeout = std::chrono::milliseconds(60000);
        for (const BenchRow& row : run_bench(c, cfg)) {
          if (row.count == 0) continue;  // no data at this size
          std::ostringstream what;
          what << comm::testing::to_string(f) << ": " << coll.name << " "
               << hn::stack::op::to_string(dtype) << " " << row.bytes << " B: #wrong " << row.wrong
               << " (spot " << row.wrong_spot << ")";
          const bool ok = f == Fault::kNone
                              ? row.wrong == 0
                              : row.wrong > 0 && (f != Fault::kStaleBuffer || row.wrong_spot > 0);
          if (!ok) throw std::runtime_error(what.str());
        }
      }
    }
  }
  comm::testing::set_fault(c, Fault::kNone);
}

// Both input buffers are used before timing: with --warmup 1 the driver still
// makes 2 warm-up calls (one per buffer), so 3 timed calls and the full
// check make 6 allreduces on the direct path; --warmup 0 stays cold (4).
// The bench's bookkeeping (barrier, max, sum) is too small for that path.
void warmup_covers_both_buffers(comm::Communicator& c) {
  for (int warmup : {1, 0, 3}) {
    BenchConfig cfg;
    cfg.op = BenchOp::kAllreduce;
    cfg.min_bytes = cfg.max_bytes = 1 << 20;
    cfg.iters = 3;
    cfg.warmup = warmup;
    cfg.window_buffers = true;
    const auto before = c.direct_calls();
    run_bench(c, cfg);
    const auto want = static_cast<std::uint64_t>(std::max(warmup, warmup ? 2 : 0) + 3 + 1);
    if (c.direct_calls() - before != want)
      throw std::runtime_error("--warmup " + std::to_string(warmup) + ": " +
                               std::to_string(c.direct_calls() - before) +
                               " direct allreduces, expected " + std::to_string(want));
  }
}

void run(comm::TransportKind t, int ranks) {
  hn::test::RankSetup setup;
  setup.transport = t;
  setup.timeout = std::chrono::milliseconds(60000);
  auto res = hn::test::run_ranks(ranks, setup, sweep);
  INFO("rank " << res.first_failed_rank << ": " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}

}  // namespace

TEST_CASE("bench mutations: shm 2 ranks") {
  run(comm::TransportKind::kShm, 2);
}
TEST_CASE("bench mutations: shm 3 ranks") {
  run(comm::TransportKind::kShm, 3);
}
TEST_CASE("bench mutations: shm 4 ranks") {
  run(comm::TransportKind::kShm, 4);
}
TEST_CASE("bench mutations: shm 2 ranks, private buffers (ring and single copy)") {
  g_window_buffers = false;
  run(comm::TransportKind::kShm, 2);
  g_window_buffers = true;
}
TEST_CASE("bench mutations: shm 2 ranks, fresh inputs around every call") {
  g_fresh_inputs = true;
  run(comm::TransportKind::kShm, 2);
  g_fresh_inputs = false;
}
TEST_CASE("bench mutations: shm 3 ranks, private buffers and fresh inputs (ring and single copy)") {
  g_window_buffers = false;
  g_fresh_inputs = true;
  run(comm::TransportKind::kShm, 3);
  g_fresh_inputs = false;
  g_window_buffers = true;
}
TEST_CASE(
    "bench mutations: shm 3 ranks, private buffers and fresh inputs, no single copy (ring and "
    "staged)") {
  setenv("HN_SHM_SINGLE_COPY", "0", 1);  // inherited by the ranks
  g_window_buffers = false;
  g_fresh_inputs = true;
  run(comm::TransportKind::kShm, 3);
  g_fresh_inputs = false;
  g_window_buffers = true;
  unsetenv("HN_SHM_SINGLE_COPY");
}
TEST_CASE("bench mutations: tcp 2 ranks") {
  run(comm::TransportKind::kTcp, 2);
}
TEST_CASE("bench mutations: tcp 3 ranks") {
  run(comm::TransportKind::kTcp, 3);
}

TEST_CASE("bench warms both input buffers before timing") {
  hn::test::RankSetup setup;
  setup.transport = comm::TransportKind::kShm;
  auto res = hn::test::run_ranks(2, setup, warmup_covers_both_buffers);
  INFO("rank " << res.first_failed_rank << ": " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}
