// The direct allreduce (stack/l3_comm/direct_allreduce.h) over shm windows:
// ranks {2,3,4,5} x sizes around and above the threshold x every dtype x
// every op x in place or not, against closed-form values (expected.h), and
// that the direct path really ran (Communicator::direct_calls). Also: a rank
// whose buffers are private makes every rank fall back to the ring together;
// over TCP windows are plain memory; each test fault breaks the direct path
// in its own way (so the bench's #wrong can see it).
#include "stack/l3_comm/direct_allreduce.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "stack/l3_comm/fault_injection.h"
#include "tests/stack/l3_comm/allreduce_matrix.h"
#include "tests/stack/l3_comm/expected.h"
#include "tests/stack/l3_comm/fault_checks.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::stack::comm;
using hn::stack::op::dtype_size;
using hn::stack::op::ReduceOp;
using hn::test::expected_value;
using hn::test::get;
using hn::test::input_value;
using hn::test::put;

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

// Bytes per buffer: the largest count below in the widest dtype.
// 1000 straddles the 2-rank threshold (2-8 KB by dtype), 16387 the larger
// one, the last pushes each block in many pieces with a short last one.
constexpr std::size_t kCounts[] = {1000, 16387, (1u << 18) + 5};
constexpr std::size_t kWindowBytes = ((1u << 18) + 5) * 8;

void matrix(Communicator& c) {
  const int n = c.size();
  auto* in = static_cast<std::byte*>(c.alloc_window(kWindowBytes));
  auto* out = static_cast<std::byte*>(c.alloc_window(kWindowBytes));
  std::uint64_t expected_direct = 0;
  hn::test::allreduce_matrix(c, Algorithm::kAuto, in, out, {kCounts[0], kCounts[1], kCounts[2]},
                             [&](hn::stack::op::DType dtype, std::size_t count) {
                               if (count * dtype_size(dtype) >= direct_min_bytes(n))
                                 ++expected_direct;
                             });
  expect(c.direct_calls() == expected_direct,
         "direct path ran " + std::to_string(c.direct_calls()) + " times, expected " +
             std::to_string(expected_direct));
  c.free_window(in);
  c.free_window(out);
}

void run(int ranks, TransportKind t, void (*fn)(Communicator&)) {
  hn::test::RankSetup setup;
  setup.transport = t;
  auto res = hn::test::run_ranks(ranks, setup, fn);
  INFO("rank " << res.first_failed_rank << ": " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}

// Rank 0 passes private buffers: nobody may take the direct path.
void mixed(Communicator& c) {
  const std::size_t count = 1u << 16;
  std::vector<float> priv_in(count), priv_out(count);
  auto* win_in = static_cast<float*>(c.alloc_window(count * 4));
  auto* win_out = static_cast<float*>(c.alloc_window(count * 4));
  float* in = c.rank() == 0 ? priv_in.data() : win_in;
  float* out = c.rank() == 0 ? priv_out.data() : win_out;
  for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>(c.rank() + 1 + i % 7);
  allreduce(c, in, out, count, Options{});
  const int n = c.size();
  for (std::size_t i = 0; i < count; ++i)
    expect(out[i] == static_cast<float>(n * (n + 1) / 2 + n * static_cast<int>(i % 7)),
           "mixed buffers: element " + std::to_string(i));
  expect(c.direct_calls() == 0, "a rank with private buffers, yet the direct path ran");
  // The same buffers in windows everywhere: now it does.
  std::memcpy(win_in, in, count * 4);
  allreduce(c, win_in, win_out, count, Options{});
  expect(c.direct_calls() == 1, "all buffers in windows, yet the direct path did not run");
}

// Over TCP a window is plain memory and the ring runs.
void over_tcp(Communicator& c) {
  const std::size_t count = 1u << 16;
  auto* in = static_cast<float*>(c.alloc_window(count * 4));
  auto* out = static_cast<float*>(c.alloc_window(count * 4));
  for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>(c.rank() + 1);
  allreduce(c, in, out, count, Options{});
  expect(out[count - 1] == 3, "tcp: wrong sum");
  expect(c.windows() == nullptr && c.direct_calls() == 0, "tcp: no shm windows, no direct path");
  c.free_window(in);
  c.free_window(out);
}

constexpr float kStale = -7;

// Two ranks: what each fault does to the direct path, where each rank
// reduces its block and pushes it into its peer's output (in one piece at
// 64 KiB, in many at 4 MiB).
void faults_at(Communicator& c, std::size_t count) {
  using testing::Fault;
  const std::size_t half = count / 2;
  const std::uint64_t before = c.direct_calls();
  auto* in = static_cast<float*>(c.alloc_window(count * 4));
  auto* out = static_cast<float*>(c.alloc_window(count * 4));
  const auto sum = hn::test::two_rank_sum;
  auto go = [&](Fault f) {
    for (std::size_t i = 0; i < count; ++i) {
      in[i] = static_cast<float>(c.rank() + 1 + 10 * (i % 100));
      out[i] = kStale;
    }
    testing::set_fault(c, f);
    allreduce(c, in, out, count, Options{});
    testing::set_fault(c, Fault::kNone);
  };
  // The block this rank gets from its peer.
  const std::size_t lo = c.rank() == 0 ? half : 0;
  hn::test::check_whole_output_faults(go, out, count, kStale);
  go(Fault::kDroppedSlice);
  for (std::size_t i = lo; i < lo + half; ++i) expect(out[i] == kStale, "dropped block is stale");
  go(Fault::kOffByOneChunk);
  expect(out[lo] == kStale, "off by one: the first element of the block keeps its old value");
  for (std::size_t i = lo + 1; i < lo + half; ++i)
    expect(out[i] == sum(i - 1), "off by one: element k lands at k+1");
  expect(c.direct_calls() - before == 6, "every fault ran on the direct path");
  c.free_window(in);
  c.free_window(out);
}

void faults(Communicator& c) {
  faults_at(c, (64u << 10) / 4);
  faults_at(c, (4u << 20) / 4);  // 2 MiB blocks: the faults cross piece boundaries
}

}  // namespace

TEST_CASE("direct allreduce matrix over shm windows") {
  for (int ranks : {2, 3, 4, 5}) {
    INFO(ranks << " ranks");
    run(ranks, TransportKind::kShm, matrix);
  }
}

TEST_CASE("a rank with private buffers makes every rank use the ring") {
  run(3, TransportKind::kShm, mixed);
}

TEST_CASE("windows over tcp are plain memory") {
  run(2, TransportKind::kTcp, over_tcp);
}

TEST_CASE("each test fault breaks the direct path in its own way") {
  run(2, TransportKind::kShm, faults);
}
