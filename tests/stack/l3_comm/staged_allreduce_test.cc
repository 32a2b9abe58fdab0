// The staged allreduce (stack/l3_comm/staged_allreduce.h) of private
// buffers over shm, forced (Algorithm::kStaged): ranks {2,3,4,5} x sizes
// from one chunk to several 128 KiB chunks with a short last one x every
// dtype x every op x in place or not, against closed-form values
// (expected.h), and that the staged path really ran
// (Communicator::staged_chunks). Also: without single copy
// (cma_allreduce.h), auto takes it from 64 KiB with 3 ranks or more; over TCP it never runs and
// forcing it is an error; ranks that disagree on the chunk count fail with a named error instead of
// reading a half being rewritten; a bad HN_STAGED_CHUNK_BYTES is an InputError; each test fault
// breaks the path in its own way (so the bench's #wrong can see it).
#include "stack/l3_comm/staged_allreduce.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "compat/input_error.h"
#include "stack/l3_comm/direct_allreduce.h"
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

// Elements per chunk, as staged_allreduce computes them.
std::size_t chunk_elems(int n, std::size_t esz) {
  const std::size_t un = static_cast<std::size_t>(n);
  return std::max<std::size_t>(staged_chunk_bytes() / esz / (16 * un) * (16 * un), 16 * un);
}

// 3000: one chunk (partly empty blocks at 5 ranks for 1-byte types);
// 300007: 3-19 chunks by dtype, with a short last one.
constexpr std::size_t kCounts[] = {3000, 300007};

void matrix(Communicator& c) {
  const int n = c.size();
  std::vector<std::byte> in(300007 * 8), out(300007 * 8);
  std::uint64_t chunks = 0;
  hn::test::allreduce_matrix(c, Algorithm::kStaged, in.data(), out.data(), {kCounts[0], kCounts[1]},
                             [&](hn::stack::op::DType dtype, std::size_t count) {
                               const std::size_t ce = chunk_elems(n, dtype_size(dtype));
                               chunks += (count + ce - 1) / ce;
                             });
  expect(c.staged_chunks() == chunks, "the staged path ran " + std::to_string(c.staged_chunks()) +
                                          " chunks, expected " + std::to_string(chunks));
  expect(c.direct_calls() == 0, "private buffers, yet the direct path ran");
}

void run(int ranks, TransportKind t, void (*fn)(Communicator&)) {
  hn::test::RankSetup setup;
  setup.transport = t;
  setup.timeout = std::chrono::milliseconds(60000);
  auto res = hn::test::run_ranks(ranks, setup, fn);
  INFO("rank " << res.first_failed_rank << ": " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}

void over_tcp(Communicator& c) {
  const std::size_t count = 1u << 18;
  std::vector<float> in(count, static_cast<float>(c.rank() + 1)), out(count);
  allreduce(c, in.data(), out.data(), count, Options{});
  expect(out[count - 1] == 3, "tcp: wrong sum");
  expect(c.staged_chunks() == 0, "tcp: the staged path ran");
  Options o;
  o.algorithm = Algorithm::kStaged;
  try {
    allreduce(c, in.data(), out.data(), count, o);
  } catch (const std::invalid_argument& e) {
    expect(std::string(e.what()).find("needs the shm transport") != std::string::npos, e.what());
    return;
  }
  throw std::runtime_error("tcp: a forced staged allreduce ran");
}

// Auto without single copy: 2 ranks keep the ring; 3 or more take the
// staged path from 64 KiB.
void auto_choice(Communicator& c) {
  const std::size_t count = (64u << 10) / 4;
  std::vector<float> in(count, 1.0f), out(count);
  allreduce(c, in.data(), out.data(), count - 16, Options{});  // just below 64 KiB
  expect(c.staged_chunks() == 0, "below 64 KiB, yet the staged path ran");
  allreduce(c, in.data(), out.data(), count, Options{});
  const bool staged = c.staged_chunks() > 0;
  expect(staged == (c.size() >= 3), std::to_string(c.size()) + " ranks at 64 KiB: staged path " +
                                        (staged ? "ran" : "did not run"));
  expect(out[count - 1] == static_cast<float>(c.size()), "auto: wrong sum");
}

// Rank 1 believes it has run one chunk more: both ranks must say so at the
// first round instead of using different halves of the staging area.
void out_of_step(Communicator& c) {
  std::vector<float> in(1u << 16, 1.0f), out(1u << 16);
  Options o;
  o.algorithm = Algorithm::kStaged;
  allreduce(c, in.data(), out.data(), in.size(), o);  // in step
  if (c.rank() == 1) ++c.staged_chunks();
  try {
    allreduce(c, in.data(), out.data(), in.size(), o);
  } catch (const std::logic_error& e) {
    expect(std::string(e.what()).find("every rank must call the same collectives") !=
               std::string::npos,
           std::string("the wrong error: ") + e.what());
    return;
  }
  throw std::runtime_error("ranks out of step, yet the allreduce returned");
}

constexpr float kStale = -7;

// Two ranks: what each fault does. Per chunk, rank r reduces its block and
// copies its peer's from the peer's staging area; the faults break that copy.
void faults_at(Communicator& c, std::size_t count) {
  using testing::Fault;
  std::vector<float> in(count), out(count);
  const auto sum = hn::test::two_rank_sum;
  auto go = [&](Fault f) {
    for (std::size_t i = 0; i < count; ++i) {
      in[i] = static_cast<float>(c.rank() + 1 + 10 * (i % 100));
      out[i] = kStale;
    }
    testing::set_fault(c, f);
    Options o;
    o.algorithm = Algorithm::kStaged;
    allreduce(c, in.data(), out.data(), count, o);
    testing::set_fault(c, Fault::kNone);
  };
  // Whether element i lies in the peer's block of its chunk, and where that
  // block starts.
  const std::size_t ce = chunk_elems(2, 4), peer = 1 - static_cast<std::size_t>(c.rank());
  auto peer_block = [&](std::size_t i, std::size_t& start) {
    const std::size_t c0 = i / ce * ce, len = std::min(ce, count - c0);
    const std::size_t per = block_elems(len, 2, 4);
    start = c0 + std::min(len, per * peer);
    const std::size_t end = c0 + std::min(len, per * (peer + 1));
    return i >= start && i < end;
  };
  hn::test::check_whole_output_faults(go, out.data(), count, kStale);
  go(Fault::kDroppedSlice);
  std::size_t start = 0;
  for (std::size_t i = 0; i < count; ++i)
    expect(out[i] == (peer_block(i, start) ? kStale : sum(i)),
           "dropped block: element " + std::to_string(i));
  go(Fault::kOffByOneChunk);
  for (std::size_t i = 0; i < count; ++i) {
    if (!peer_block(i, start)) continue;
    expect(out[i] == (i == start ? kStale : sum(i - 1)),
           "off by one: element " + std::to_string(i));
  }
}

void faults(Communicator& c) {
  faults_at(c, (64u << 10) / 4);
  faults_at(c, (1u << 20) / 4 + 3);  // several chunks, a short last one
}

}  // namespace

TEST_CASE("staged allreduce matrix over shm with private buffers") {
  for (int ranks : {2, 3, 4, 5}) {
    INFO(ranks << " ranks");
    run(ranks, TransportKind::kShm, matrix);
  }
}

TEST_CASE("the staged path never runs over tcp, and forcing it there is an error") {
  run(2, TransportKind::kTcp, over_tcp);
}

TEST_CASE("without single copy auto takes the staged path from 64 KiB with 3 ranks or more") {
  setenv("HN_SHM_SINGLE_COPY", "0", 1);  // inherited by the ranks
  struct Unset {
    ~Unset() { unsetenv("HN_SHM_SINGLE_COPY"); }
  } unset;
  for (int ranks : {2, 3, 4}) {
    INFO(ranks << " ranks");
    run(ranks, TransportKind::kShm, auto_choice);
  }
}

TEST_CASE("ranks out of step on the staged path fail with a named error") {
  run(2, TransportKind::kShm, out_of_step);
}

TEST_CASE("each test fault breaks the staged path in its own way") {
  run(2, TransportKind::kShm, faults);
}

TEST_CASE("HN_STAGED_CHUNK_BYTES must be a byte count of at least 4096") {
  for (const char* bad : {"", "12", "1e6", "-4096", "99999999999"}) {
    INFO("'" << bad << "'");
    setenv("HN_STAGED_CHUNK_BYTES", bad, 1);
    CHECK_THROWS_AS(staged_chunk_bytes(), hn::compat::InputError);
  }
  setenv("HN_STAGED_CHUNK_BYTES", "65537", 1);
  CHECK(staged_chunk_bytes() == 65536);
  unsetenv("HN_STAGED_CHUNK_BYTES");
  CHECK(staged_chunk_bytes() == std::size_t{128} << 10);
}
