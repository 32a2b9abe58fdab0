// The correctness matrix: ranks {1,2,3,4,5,8} x counts {0,1,7,1023,1Mi+3}
// x every dtype x every op x both algorithms x both transports, for every
// collective, against closed-form values (expected.h). One launch per
// (transport, ranks): the combinations loop inside the ranks, so the whole
// matrix costs a few launches, not thousands.

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "stack/l3_comm/collectives.h"
#include "tests/stack/l3_comm/expected.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::stack::comm;
using hn::stack::op::dtype_size;
using hn::test::expected_value;
using hn::test::get;
using hn::test::input_value;
using hn::test::put;

namespace {

std::vector<std::size_t> counts(int ranks) {
  // The TSan build (or HN_COMM_MATRIX_SMALL=1) drops the 1 Mi-element case.
#ifdef HN_COMM_MATRIX_SMALL
  return {0, 1, 7, 1023};
#endif
  if (std::getenv("HN_COMM_MATRIX_SMALL")) return {0, 1, 7, 1023};
  // 8 ranks on a 2-CPU CI box spent 85-90 s per transport in the element
  // checks of the largest case. A quarter of it keeps blocks with a
  // remainder and several ring slices; wrapping the shm ring is covered by
  // 2-5 ranks, which keep 1 Mi elements.
  if (ranks >= 8) return {0, 1, 7, 1023, (1u << 18) + 3};
  return {0, 1, 7, 1023, (1u << 20) + 3};
}

// Buffers reused across the whole matrix (each rank is its own process):
// fresh megabytes for every call, zero-filled and faulted in, were a third
// of the test's time. An output is filled with a pattern before each call,
// so a result left from the previous combination can never pass for this
// one; an input is written whole by its check before the call.
class Scratch {
 public:
  std::byte* in(std::size_t bytes) { return take(in_, bytes, false); }
  std::byte* out(std::size_t bytes) { return take(out_, bytes, true); }

 private:
  static std::byte* take(std::vector<std::byte>& v, std::size_t bytes, bool fill) {
    if (v.size() < bytes + 1) v.resize(bytes + 1);  // + 1: a distinct pointer for 0 bytes
    if (fill) std::memset(v.data(), 0x5a, bytes);
    return v.data();
  }
  std::vector<std::byte> in_, out_;
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

struct Where {
  std::string what;
  [[noreturn]] void fail(std::size_t i, double got, double want) const {
    std::ostringstream os;
    os << what << ": element " << i << " is " << got << ", expected " << want;
    throw std::runtime_error(os.str());
  }
};

std::string label(const char* coll, const Options& o, std::size_t count, bool inplace) {
  std::ostringstream os;
  os << coll << " " << to_string(o.dtype) << " " << to_string(o.op) << " " << to_string(o.algorithm)
     << " count=" << count << (inplace ? " in-place" : "");
  return os.str();
}

void check_allreduce(Communicator& c, const Options& o, std::size_t count, bool inplace) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* in = scratch().in(count * esz);
  std::byte* out = scratch().out(count * esz);
  for (std::size_t i = 0; i < count; ++i) put(o.dtype, in, i, input_value(o.op, r, i));
  void* dst = inplace ? in : out;
  allreduce(c, in, dst, count, o);
  Where w{label("allreduce", o, count, inplace)};
  for (std::size_t i = 0; i < count; ++i) {
    double want = expected_value(o.op, o.dtype, n, i), got = get(o.dtype, dst, i);
    if (got != want) w.fail(i, got, want);
  }
}

void check_reduce_scatter(Communicator& c, const Options& o, std::size_t rc, bool inplace) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* in = scratch().in(rc * n * esz);
  std::byte* out = scratch().out(rc * esz);
  for (std::size_t i = 0; i < rc * n; ++i) put(o.dtype, in, i, input_value(o.op, r, i));
  void* dst = inplace ? in + r * rc * esz : out;
  reduce_scatter(c, in, dst, rc, o);
  Where w{label("reduce_scatter", o, rc, inplace)};
  for (std::size_t j = 0; j < rc; ++j) {
    std::size_t g = r * rc + j;
    double want = expected_value(o.op, o.dtype, n, g), got = get(o.dtype, dst, j);
    if (got != want) w.fail(g, got, want);
  }
}

void check_reduce(Communicator& c, const Options& o, std::size_t count) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* in = scratch().in(count * esz);
  std::byte* out = scratch().out(count * esz);
  for (std::size_t i = 0; i < count; ++i) put(o.dtype, in, i, input_value(o.op, r, i));
  reduce(c, in, out, count, o);
  if (r != o.root) return;
  Where w{label("reduce", o, count, false) + " root=" + std::to_string(o.root)};
  for (std::size_t i = 0; i < count; ++i) {
    double want = expected_value(o.op, o.dtype, n, i), got = get(o.dtype, out, i);
    if (got != want) w.fail(i, got, want);
  }
}

// A value that tells sender, block and index apart, exact in every dtype.
double tag(int from, std::size_t i) {
  return static_cast<double>((from * 13 + i) % 97) - 40;
}

void check_allgather(Communicator& c, const Options& o, std::size_t count, bool inplace) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* in = scratch().in(count * esz);
  std::byte* out = scratch().out(count * n * esz);
  std::byte* src = inplace ? out + r * count * esz : in;
  for (std::size_t i = 0; i < count; ++i) put(o.dtype, src, i, tag(r, i));
  allgather(c, src, out, count, o);
  Where w{label("allgather", o, count, inplace)};
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < count; ++i)
      if (get(o.dtype, out, j * count + i) != tag(j, i))
        w.fail(j * count + i, get(o.dtype, out, j * count + i), tag(j, i));
}

void check_broadcast(Communicator& c, const Options& o, std::size_t count) {
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* buf = scratch().out(count * esz);
  if (c.rank() == o.root)
    for (std::size_t i = 0; i < count; ++i) put(o.dtype, buf, i, tag(o.root, i));
  broadcast(c, buf, count, o);
  Where w{label("broadcast", o, count, false) + " root=" + std::to_string(o.root)};
  for (std::size_t i = 0; i < count; ++i)
    if (get(o.dtype, buf, i) != tag(o.root, i)) w.fail(i, get(o.dtype, buf, i), tag(o.root, i));
}

void check_alltoall(Communicator& c, const Options& o, std::size_t count) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* in = scratch().in(count * n * esz);
  std::byte* out = scratch().out(count * n * esz);
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < count; ++i) put(o.dtype, in, j * count + i, tag(r * n + j, i));
  alltoall(c, in, out, count, o);
  Where w{label("alltoall", o, count, false)};
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < count; ++i)
      if (get(o.dtype, out, j * count + i) != tag(j * n + r, i))
        w.fail(j * count + i, get(o.dtype, out, j * count + i), tag(j * n + r, i));
}

// Rank j sends (j + k) % 5 + base elements to rank k: unequal sizes, some zero.
void check_alltoallv(Communicator& c, const Options& o, std::size_t base) {
  const int n = c.size(), r = c.rank();
  const std::size_t esz = dtype_size(o.dtype);
  auto cnt = [&](int from, int to) { return static_cast<std::size_t>((from + to) % 5) * base / 4; };
  std::vector<std::size_t> sc(n), sd(n), rcount(n), rd(n);
  std::size_t st = 0, rt = 0;
  for (int j = 0; j < n; ++j) {
    sc[j] = cnt(r, j), sd[j] = st, st += sc[j];
    rcount[j] = cnt(j, r), rd[j] = rt, rt += rcount[j];
  }
  std::byte* in = scratch().in(st * esz);
  std::byte* out = scratch().out(rt * esz);
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < sc[j]; ++i) put(o.dtype, in, sd[j] + i, tag(r * n + j, i));
  alltoallv(c, in, sc, sd, out, rcount, rd, o);
  Where w{label("alltoallv", o, base, false)};
  for (int j = 0; j < n; ++j)
    for (std::size_t i = 0; i < rcount[j]; ++i)
      if (get(o.dtype, out, rd[j] + i) != tag(j * n + r, i))
        w.fail(rd[j] + i, get(o.dtype, out, rd[j] + i), tag(j * n + r, i));
}

void check_sendrecv(Communicator& c, const Options& o, std::size_t count) {
  const int n = c.size(), r = c.rank();
  if (n == 1) return;
  const std::size_t esz = dtype_size(o.dtype);
  std::byte* in = scratch().in(count * esz);
  std::byte* out = scratch().out(count * esz);
  for (std::size_t i = 0; i < count; ++i) put(o.dtype, in, i, tag(r, i));
  sendrecv(c, in, (r + 1) % n, out, (r + n - 1) % n, count, o);
  Where w{label("sendrecv", o, count, false)};
  for (std::size_t i = 0; i < count; ++i)
    if (get(o.dtype, out, i) != tag((r + n - 1) % n, i))
      w.fail(i, get(o.dtype, out, i), tag((r + n - 1) % n, i));
  // send/recv: rank 0 to the last rank.
  if (r == 0) send(c, in, count, n - 1, o);
  if (r == n - 1) {
    recv(c, out, count, 0, o);
    for (std::size_t i = 0; i < count; ++i)
      if (get(o.dtype, out, i) != tag(0, i)) w.fail(i, get(o.dtype, out, i), tag(0, i));
  }
}

void matrix(Communicator& c) {
  const Algorithm algos[] = {Algorithm::kRing, Algorithm::kRecursiveDoubling};
  int combo = 0;
  for (std::size_t count : counts(c.size())) {
    for (auto dtype : hn::stack::op::kAllDTypes) {
      Options base;
      base.dtype = dtype;
      for (auto algo : algos) {
        base.algorithm = algo;
        base.root = (combo++) % c.size();
        for (auto rop : hn::stack::op::kAllReduceOps) {
          Options o = base;
          o.op = rop;
          bool inplace =
              (static_cast<int>(dtype) + static_cast<int>(rop) + static_cast<int>(algo)) % 2 == 0;
          check_allreduce(c, o, count, inplace);
          check_reduce(c, o, count);
          if (algo == Algorithm::kRing) check_reduce_scatter(c, o, count, !inplace);
        }
        check_broadcast(c, base, count);
        if (algo == Algorithm::kRing) {
          check_allgather(c, base, count, count % 2 == 1);
          check_alltoall(c, base, count);
          check_alltoallv(c, base, count);
          check_sendrecv(c, base, count);
        }
      }
    }
    barrier(c);
  }
}

void run_matrix(TransportKind t, int n) {
  hn::test::RankSetup setup;
  setup.transport = t;
  setup.timeout = std::chrono::milliseconds(60000);
  auto res = hn::test::run_ranks(n, setup, matrix);
  INFO("first failure: rank " << res.first_failed_rank << " " << res.first_failure);
  REQUIRE(res.exit_code == 0);
}

}  // namespace

#define HN_MATRIX(T, TNAME, N)                             \
  TEST_CASE("collectives matrix " TNAME " " #N " ranks") { \
    run_matrix(T, N);                                      \
  }

HN_MATRIX(TransportKind::kShm, "shm", 1)
HN_MATRIX(TransportKind::kShm, "shm", 2)
HN_MATRIX(TransportKind::kShm, "shm", 3)
HN_MATRIX(TransportKind::kShm, "shm", 4)
HN_MATRIX(TransportKind::kShm, "shm", 5)
HN_MATRIX(TransportKind::kShm, "shm", 8)
HN_MATRIX(TransportKind::kTcp, "tcp", 1)
HN_MATRIX(TransportKind::kTcp, "tcp", 2)
HN_MATRIX(TransportKind::kTcp, "tcp", 3)
HN_MATRIX(TransportKind::kTcp, "tcp", 4)
HN_MATRIX(TransportKind::kTcp, "tcp", 5)
HN_MATRIX(TransportKind::kTcp, "tcp", 8)

// A barrier returns on no rank before every rank has entered it: ranks
// arrive 0-80 ms apart (rank r sleeps 20 ms * r), and each rank's exit is
// compared with the latest arrival (CLOCK_MONOTONIC is one clock for every
// process on the host), three barriers in a row.
TEST_CASE("barrier: no rank leaves before the last one arrives") {
  for (TransportKind t : {TransportKind::kShm, TransportKind::kTcp})
    for (int n : {2, 3, 5}) {
      hn::test::RankSetup setup;
      setup.transport = t;
      auto res = hn::test::run_ranks(n, setup, [](Communicator& c) {
        using Clock = std::chrono::steady_clock;
        for (int round = 0; round < 3; ++round) {
          std::this_thread::sleep_for(
              std::chrono::milliseconds(20 * ((c.rank() + round) % c.size())));
          const double arrived =
              std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
          barrier(c);
          const double left =
              std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
          Options o;
          o.dtype = hn::stack::op::DType::kF64;
          o.op = hn::stack::op::ReduceOp::kMax;
          double last = 0;
          allreduce(c, &arrived, &last, 1, o);
          if (left < last)
            throw std::runtime_error("rank " + std::to_string(c.rank()) + " left the barrier " +
                                     std::to_string((last - left) * 1e3) +
                                     " ms before the last arrival");
        }
      });
      INFO((t == TransportKind::kShm ? "shm " : "tcp ")
           << n << " ranks: rank " << res.first_failed_rank << " " << res.first_failure);
      REQUIRE(res.exit_code == 0);
    }
}
