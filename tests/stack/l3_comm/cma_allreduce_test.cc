// The single-copy allreduce (stack/l3_comm/cma_allreduce.h) of private
// buffers over shm, forced (Algorithm::kCma): ranks {2,3,4,5} x sizes from
// one piece to several 128 KiB pieces with a short last one x every dtype x
// every op x in place or not, against closed-form values (expected.h), and
// that the path really ran (Communicator::cma_calls). Also: auto takes it
// from 64 KiB with 2 ranks and 256 KiB with more; HN_SHM_SINGLE_COPY=0 or
// TCP turn it off on every rank, and forcing it then is an error (any other
// value of the variable is exit 2: tests/preflight/bench_cli_test.cc); a copy the
// kernel refuses is a LinkError naming the peer; each test fault breaks the
// path in its own way (so the bench's #wrong can see it).
#include "stack/l3_comm/cma_allreduce.h"

#include <sys/mman.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "stack/l3_comm/direct_allreduce.h"
#include "stack/l3_comm/errors.h"
#include "stack/l3_comm/fault_injection.h"
#include "tests/stack/l3_comm/allreduce_matrix.h"
#include "tests/stack/l3_comm/expected.h"
#include "tests/stack/l3_comm/fault_checks.h"
#include "tests/stack/l3_comm/rank_harness.h"
#include "tests/support/skip.h"

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

// 3000: one piece (empty blocks at 5 ranks for 1-byte types); 300007: up to
// 19 pieces by dtype and rank count, with a short last one.
constexpr std::size_t kCounts[] = {3000, 300007};

void matrix(Communicator& c) {
  std::vector<std::byte> in(300007 * 8), out(300007 * 8);
  std::uint64_t calls = 0;
  hn::test::allreduce_matrix(c, Algorithm::kCma, in.data(), out.data(), {kCounts[0], kCounts[1]},
                             [&](auto, std::size_t) { ++calls; });
  expect(c.cma_calls() == calls, "the single-copy path ran " + std::to_string(c.cma_calls()) +
                                     " times, expected " + std::to_string(calls));
  expect(c.direct_calls() == 0 && c.staged_chunks() == 0, "another path ran");
}

void run(int ranks, TransportKind t, void (*fn)(Communicator&)) {
  hn::test::RankSetup setup;
  setup.transport = t;
  setup.timeout = std::chrono::milliseconds(60000);
  auto res = hn::test::run_ranks(ranks, setup, fn);
  INFO("rank " << res.first_failed_rank << ": " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}

// Without single copy: auto never takes the path, and forcing it throws.
void unavailable(Communicator& c) {
  const std::size_t count = 1u << 18;
  std::vector<float> in(count, static_cast<float>(c.rank() + 1)), out(count);
  expect(!cma_available(c), "single copy offered");
  allreduce(c, in.data(), out.data(), count, Options{});
  expect(out[count - 1] == 3, "wrong sum without single copy");
  expect(c.cma_calls() == 0, "the single-copy path ran");
  Options o;
  o.algorithm = Algorithm::kCma;
  try {
    allreduce(c, in.data(), out.data(), count, o);
  } catch (const std::invalid_argument& e) {
    expect(
        std::string(e.what()).find("needs the shm transport with single copy") != std::string::npos,
        e.what());
    return;
  }
  throw std::runtime_error("a forced single-copy allreduce ran without single copy");
}

// Auto: from 64 KiB with 2 ranks, from 256 KiB with more.
void auto_choice(Communicator& c) {
  const std::size_t from = cma_min_bytes(c.size()) / 4;
  expect(cma_min_bytes(2) == 64u << 10 && cma_min_bytes(3) == 256u << 10, "thresholds moved");
  std::vector<float> in(from, 1.0f), out(from);
  allreduce(c, in.data(), out.data(), from - 16, Options{});
  expect(c.cma_calls() == 0, "below the threshold, yet the single-copy path ran");
  allreduce(c, in.data(), out.data(), from, Options{});
  expect(c.cma_calls() == 1, std::to_string(c.size()) + " ranks at the threshold: no single copy");
  expect(out[from - 1] == static_cast<float>(c.size()), "auto: wrong sum");
}

// Rank 1's input is a page the kernel cannot read (PROT_NONE) and 16 floats
// make rank 0's the only non-empty block, so rank 1 never touches it
// itself: rank 0's copy fails and must name rank 1.
void refused_copy(Communicator& c) {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  expect(page != MAP_FAILED, "mmap");
  std::vector<float> good(16, 1.0f), out(16);
  Options o;
  o.algorithm = Algorithm::kCma;
  o.timeout = std::chrono::milliseconds(5000);
  const float* in = c.rank() == 1 ? static_cast<const float*>(page) : good.data();
  try {
    allreduce(c, in, out.data(), 16, o);
  } catch (const LinkError& e) {
    munmap(page, 4096);
    if (c.rank() != 0) return;  // rank 1 learns that rank 0 gave up
    const std::string w = e.what();
    expect(w.find("reading from rank 1's buffer") != std::string::npos, w);
    expect(w.find("Bad address") != std::string::npos, w);
    return;
  } catch (const CommError&) {
    munmap(page, 4096);
    if (c.rank() == 1) return;
    throw;
  }
  munmap(page, 4096);
  throw std::runtime_error("rank " + std::to_string(c.rank()) + ": the allreduce returned");
}

constexpr float kStale = -7;

// Two ranks: what each fault does. Rank r reduces block r and writes it into
// the peer's output; the faults break that write, so each rank sees the
// peer's block of its own output broken.
void faults(Communicator& c) {
  using testing::Fault;
  for (std::size_t count : {std::size_t{16384}, (std::size_t{1} << 20) / 4 + 3}) {
    std::vector<float> in(count), out(count);
    auto go = [&](Fault f) {
      for (std::size_t i = 0; i < count; ++i) {
        in[i] = static_cast<float>(c.rank() + 1 + 10 * (i % 100));
        out[i] = kStale;
      }
      testing::set_fault(c, f);
      Options o;
      o.algorithm = Algorithm::kCma;
      allreduce(c, in.data(), out.data(), count, o);
      testing::set_fault(c, Fault::kNone);
    };
    const std::size_t per = block_elems(count, 2, 4), peer = 1 - static_cast<std::size_t>(c.rank());
    const std::size_t start = std::min(count, per * peer), end = std::min(count, start + per);
    const auto sum = hn::test::two_rank_sum;
    hn::test::check_whole_output_faults(go, out.data(), count, kStale);
    go(Fault::kDroppedSlice);
    for (std::size_t i = 0; i < count; ++i)
      expect(out[i] == (i >= start && i < end ? kStale : sum(i)),
             "dropped block: element " + std::to_string(i));
    go(Fault::kOffByOneChunk);
    for (std::size_t i = start; i < end; ++i)
      expect(out[i] == (i == start ? kStale : sum(i - 1)),
             "off by one: element " + std::to_string(i));
  }
}

// Skips the calling test where the kernel refuses single copy between
// sibling ranks (Yama ptrace_scope 2 or 3, a seccomp filter): the ranks
// then agree at setup to go without it, which `unavailable` tests.
void require_single_copy() {
  hn::test::RankSetup setup;
  setup.transport = TransportKind::kShm;
  auto res = hn::test::run_ranks(2, setup, [](Communicator& c) {
    if (!cma_available(c)) throw std::runtime_error("the ranks agreed on no single copy");
  });
  if (res.exit_code != 0)
    hn::test::skip("process_vm_readv between sibling ranks is refused here (" + res.first_failure +
                   ")");
}

// Sets an environment variable for the ranks run_ranks forks, and restores it.
struct ScopedEnv {
  explicit ScopedEnv(const char* k, const char* v) : key(k) { setenv(k, v, 1); }
  ~ScopedEnv() { unsetenv(key); }
  const char* key;
};

}  // namespace

TEST_CASE("single-copy allreduce matrix over shm with private buffers") {
  require_single_copy();
  for (int ranks : {2, 3, 4, 5}) {
    INFO(ranks << " ranks");
    run(ranks, TransportKind::kShm, matrix);
  }
}

TEST_CASE("auto takes the single-copy path from 64 KiB with 2 ranks, 256 KiB with more") {
  require_single_copy();
  for (int ranks : {2, 3, 4}) {
    INFO(ranks << " ranks");
    run(ranks, TransportKind::kShm, auto_choice);
  }
}

TEST_CASE("without single copy (tcp, HN_SHM_SINGLE_COPY=0) the path never runs") {
  run(2, TransportKind::kTcp, unavailable);
  ScopedEnv off("HN_SHM_SINGLE_COPY", "0");
  run(2, TransportKind::kShm, unavailable);
}

TEST_CASE("a copy the kernel refuses is a LinkError naming the peer") {
  require_single_copy();
  run(2, TransportKind::kShm, refused_copy);
}

TEST_CASE("each test fault breaks the single-copy path in its own way") {
  require_single_copy();
  run(2, TransportKind::kShm, faults);
}
