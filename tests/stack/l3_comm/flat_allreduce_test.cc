// The flat allreduce (stack/l3_comm/flat_allreduce.h): ranks {2,3,4,5,8} x
// sizes up to its 4 KiB limit, across the mailbox's 56 bytes, x every dtype
// x every op x in place or not, against closed-form values (expected.h);
// when allreduce chooses it; that every rank gets the same bits from
// arbitrary floats (the rank-order reduction); that each test fault makes
// some rank's output wrong; and that mailbox messages and ring bytes between
// the same ranks, from a communicator and its split, stay in order.
#include "stack/l3_comm/flat_allreduce.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "stack/l3_comm/fault_injection.h"
#include "stack/l3_comm/split.h"
#include "tests/stack/l3_comm/allreduce_matrix.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::stack::comm;
using hn::stack::op::DType;
using hn::stack::op::dtype_size;
using hn::stack::op::ReduceOp;

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

void matrix(Communicator& c) {
  std::vector<std::byte> in(4096), out(4096);
  hn::test::allreduce_matrix(
      c, Algorithm::kAuto, in.data(), out.data(),
      [](DType t) {
        return std::vector<std::size_t>{1, 7, 56 / dtype_size(t), 56 / dtype_size(t) + 1,
                                        4096 / dtype_size(t)};
      },
      [](DType, std::size_t) {});
}

// Floats whose sum depends on the order of addition: every rank must still
// hold the same bits, which a per-rank reduction order would break.
void same_bits(Communicator& c) {
  const std::size_t count = 1000;
  std::mt19937 rng(1234u + static_cast<unsigned>(c.rank()));
  std::uniform_real_distribution<float> d(-1e6f, 1e6f);
  std::vector<float> in(count), out(count);
  for (auto& x : in) x = d(rng) * (c.rank() % 2 ? 1e-6f : 1.0f);
  allreduce(c, in.data(), out.data(), count, Options{});
  std::uint32_t h = 2166136261u;  // FNV-1a over the output's bytes
  for (std::size_t i = 0; i < count * sizeof(float); ++i)
    h = (h ^ std::to_integer<std::uint32_t>(reinterpret_cast<std::byte*>(out.data())[i])) *
        16777619u;
  double lo = h, hi = h;
  Options o;
  o.dtype = DType::kF64;
  o.op = ReduceOp::kMin;
  allreduce(c, &lo, &lo, 1, o);
  o.op = ReduceOp::kMax;
  allreduce(c, &hi, &hi, 1, o);
  expect(lo == hi, "ranks hold different bits after allreduce");
}

void faults(Communicator& c) {
  using testing::Fault;
  const int n = c.size();
  for (Fault f : testing::kAllFaults)
    for (std::size_t count :
         {std::size_t{1}, std::size_t{2}, std::size_t{100}, std::size_t{1024}}) {
      std::vector<float> in(count), out(count);
      // Per-call values, so a stale output cannot match.
      for (int call = 0; call < 2; ++call) {
        for (std::size_t i = 0; i < count; ++i)
          in[i] = static_cast<float>(c.rank() + 1 + 10 * call + 100 * (i % 50));
        testing::set_fault(c, f);
        allreduce(c, in.data(), out.data(), count, Options{});
        testing::set_fault(c, Fault::kNone);
      }
      double wrong = 0;
      for (std::size_t i = 0; i < count; ++i)
        if (out[i] != static_cast<float>(n * (n + 1) / 2 + n * (10 + 100 * (i % 50)))) ++wrong;
      Options o;
      o.dtype = DType::kF64;
      allreduce(c, &wrong, &wrong, 1, o);
      expect(wrong > 0, std::string(testing::to_string(f)) + " at count " + std::to_string(count) +
                            " left every output right");
    }
}

void choice(Communicator& c) {
  const bool shm = c.transport() == TransportKind::kShm;
  const bool flat = shm && c.size() >= 3 && c.size() <= 8;
  const bool two = shm && c.size() == 2;  // only what fits the mailbox
  expect(use_flat_allreduce(c, 8) == (flat || two), "8 B");
  expect(use_flat_allreduce(c, 56) == (flat || two), "56 B");
  expect(use_flat_allreduce(c, 57) == flat, "57 B");
  expect(use_flat_allreduce(c, 4096) == flat, "4 KiB");
  expect(!use_flat_allreduce(c, 4097), "past 4 KiB");
}

// Mailbox messages (8 B), ring bytes (1 KiB, 64 KiB) and a split's mailbox
// messages between the same ranks, interleaved with values unique per call:
// a message read from the wrong slot or out of order is a wrong sum.
void interleaved(Communicator& c) {
  const int n = c.size(), r = c.rank();
  auto half = split(c, r % 2, r, "half");
  for (int call = 0; call < 40; ++call)
    for (std::size_t count :
         {std::size_t{2}, std::size_t{256}, std::size_t{2}, std::size_t{16384}}) {
      std::vector<float> in(count), out(count);
      for (std::size_t i = 0; i < count; ++i)
        in[i] = static_cast<float>((r + 1) * (call + 1) + 1000 * (i % 7));
      allreduce(c, in.data(), out.data(), count, Options{});
      for (std::size_t i = 0; i < count; ++i)
        expect(out[i] == static_cast<float>(n * (n + 1) / 2 * (call + 1) + n * 1000 * (i % 7)),
               "call " + std::to_string(call) + " count " + std::to_string(count) + " element " +
                   std::to_string(i));
      // The split's members are the ranks of our parity.
      const int hn = half->size();
      int sum_ranks = 0;
      for (int q = r % 2; q < n; q += 2) sum_ranks += q + 1;
      float v[2] = {static_cast<float>((r + 1) * (call + 3)), static_cast<float>(call)}, w[2];
      allreduce(*half, v, w, 2, Options{});
      expect(w[0] == static_cast<float>(sum_ranks * (call + 3)) &&
                 w[1] == static_cast<float>(hn * call),
             "split call " + std::to_string(call));
    }
}

void run(int ranks, TransportKind t, void (*fn)(Communicator&)) {
  hn::test::RankSetup setup;
  setup.transport = t;
  auto res = hn::test::run_ranks(ranks, setup, fn);
  INFO(ranks << " ranks, rank " << res.first_failed_rank << ": " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}

}  // namespace

TEST_CASE("flat allreduce matrix") {
  for (int ranks : {2, 3, 4, 5, 8}) run(ranks, TransportKind::kShm, matrix);
}

TEST_CASE("flat allreduce: every rank holds the same bits") {
  for (int ranks : {3, 5}) run(ranks, TransportKind::kShm, same_bits);
}

TEST_CASE("flat allreduce: each test fault makes an output wrong") {
  for (int ranks : {2, 3, 4}) run(ranks, TransportKind::kShm, faults);
}

TEST_CASE("flat allreduce: mailbox and rings interleave in order") {
  for (int ranks : {2, 3, 4}) run(ranks, TransportKind::kShm, interleaved);
}

TEST_CASE("flat allreduce: chosen on shm for 3 to 8 ranks up to 4 KiB and 2 ranks up to 56 B") {
  for (int ranks : {2, 3, 8, 9}) run(ranks, TransportKind::kShm, choice);
  run(3, TransportKind::kTcp, choice);
}
