// split(): MPI_Comm_split / ncclCommSplit semantics on real ranks over shm
// and TCP. Members are ordered by key, ties by parent rank; kNoColor gets no
// communicator; groups run collectives over the parent's links, interleaved
// with the parent's own; nested splits. (split_fault_test.cc kills a rank.)

#include "stack/l3_comm/split.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "stack/l3_comm/collectives.h"
#include "stack/l3_comm/link_bindings.h"
#include "tests/stack/l3_comm/rank_harness.h"

using namespace hn::stack::comm;

namespace {

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "[" + s + "]";
}

// Every member contributes its parent rank; allgather must return the
// members in the group's rank order.
std::vector<int> gather_parent_ranks(Communicator& g, int parent_rank) {
  std::vector<std::int32_t> mine = {parent_rank}, all(static_cast<std::size_t>(g.size()));
  Options o;
  o.dtype = hn::stack::op::DType::kI32;
  allgather(g, mine.data(), all.data(), 1, o);
  return {all.begin(), all.end()};
}

const TransportKind kTransports[] = {TransportKind::kShm, TransportKind::kTcp};

}  // namespace

TEST_CASE("split: colours, key order, ties by parent rank, no colour") {
  for (TransportKind t : kTransports)
    for (int n : {1, 2, 3, 5, 8}) {
      INFO(to_string(t) << " ranks " << n);
      hn::test::RankSetup setup;
      setup.transport = t;
      auto r = hn::test::run_ranks(n, setup, [](Communicator& world) {
        const int me = world.rank(), n = world.size();
        // Colour by parity, reverse order by key; rank 2 opts out.
        const int color = me == 2 ? kNoColor : me % 2;
        auto g = split(world, color, n - me, "parity");
        // Equal keys: ties keep the parent's order (every rank takes part).
        auto tie = split(world, 0, 7, "tie");
        std::vector<int> everyone(static_cast<std::size_t>(n));
        std::iota(everyone.begin(), everyone.end(), 0);
        expect(tie->rank() == me && tie->parent_ranks() == everyone, "ties by parent rank");
        if (color == kNoColor) {
          expect(g == nullptr, "kNoColor got a communicator");
          return;
        }
        std::vector<int> want;
        for (int q = n - 1; q >= 0; --q)
          if (q != 2 && q % 2 == color) want.push_back(q);
        expect(g->size() == static_cast<int>(want.size()),
               "size " + std::to_string(g->size()) + ", want " + list(want));
        expect(want[static_cast<std::size_t>(g->rank())] == me, "rank order " + list(want));
        expect(g->parent_ranks() == want, "parent_ranks " + list(g->parent_ranks()));
        if (g->size() > 1) {
          auto got = gather_parent_ranks(*g, me);
          expect(got == want, "allgather gave " + list(got) + ", want " + list(want));
        }
      });
      CHECK(r.exit_code == 0);
    }
}

TEST_CASE("split: groups and the parent interleave collectives over shared links") {
  for (TransportKind t : kTransports) {
    INFO(to_string(t));
    hn::test::RankSetup setup;
    setup.transport = t;
    auto r = hn::test::run_ranks(8, setup, [](Communicator& world) {
      const int me = world.rank();
      // A 2 x 4 grid: rows (consecutive ranks) and columns, like tp and dp.
      auto row = split(world, me / 2, me, "row");
      auto col = split(world, me % 2, me, "col");
      auto sub = split(*col, col->rank() / 2, col->rank(), "sub");  // nested
      expect(sub->size() == 2 && sub->parent_ranks() == std::vector<int>{(me / 4) * 4 + me % 2,
                                                                         (me / 4) * 4 + me % 2 + 2},
             "nested parent_ranks " + list(sub->parent_ranks()));
      Options o;
      o.dtype = hn::stack::op::DType::kF64;
      for (int round = 0; round < 3; ++round) {
        for (std::size_t count : {std::size_t{1}, std::size_t{1000}, std::size_t{70000}}) {
          std::vector<double> a(count, me + round), b(count, me * 10.0), c(count, 1.0),
              d(count, me);
          allreduce(*row, a.data(), a.data(), count, o);
          allreduce(world, c.data(), c.data(), count, o);
          allreduce(*col, b.data(), b.data(), count, o);
          allreduce(*sub, d.data(), d.data(), count, o);
          const double row_sum = (me / 2) * 4 + 1 + 2.0 * round;
          const double col_sum = 10.0 * (me % 2 == 0 ? 0 + 2 + 4 + 6 : 1 + 3 + 5 + 7);
          const double sub_sum = sub->parent_ranks()[0] + sub->parent_ranks()[1];
          for (std::size_t i = 0; i < count; ++i) {
            expect(a[i] == row_sum, "row allreduce " + std::to_string(a[i]));
            expect(b[i] == col_sum, "col allreduce " + std::to_string(b[i]));
            expect(c[i] == 8, "world allreduce " + std::to_string(c[i]));
            expect(d[i] == sub_sum, "nested allreduce " + std::to_string(d[i]));
          }
        }
        // Point to point inside a group: a ring shift along the column.
        double out = me, in = -1;
        const int cn = col->size(), cr = col->rank();
        sendrecv(*col, &out, (cr + 1) % cn, &in, (cr + cn - 1) % cn, 1, o);
        expect(in == col->parent_ranks()[static_cast<std::size_t>((cr + cn - 1) % cn)],
               "column ring shift got " + std::to_string(in));
      }
    });
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("split: a negative colour other than kNoColor is refused before any traffic") {
  hn::test::RankSetup setup;
  auto r = hn::test::run_ranks(1, setup, [](Communicator& world) {
    try {
      split(world, -2, 0);
    } catch (const std::invalid_argument& e) {
      expect(std::string(e.what()).find("color -2 is negative") != std::string::npos, e.what());
      return;
    }
    throw std::runtime_error("accepted color -2");
  });
  CHECK(r.exit_code == 0);
}

TEST_CASE("split: a group on links of its own, bound to its plane's address") {
  for (TransportKind t : kTransports) {
    INFO("world over " << to_string(t));
    hn::test::RankSetup setup;
    setup.transport = t;
    auto r = hn::test::run_ranks(4, setup, [](Communicator& world) {
      const int me = world.rank();
      LinkParams plane;
      plane.plane = "param-b";
      plane.bind_address = "127.0.0.2";  // another loopback address: another "plane"
      plane.connect_timeout = std::chrono::milliseconds(10000);
      auto g = split(world, me % 2, me, "tp", &plane);
      expect(g->transport() == TransportKind::kTcp, "own links are tcp");
      expect(g->link().plane == "param-b", "the group's plane");
      double v = me;
      Options o;
      o.dtype = hn::stack::op::DType::kF64;
      allreduce(*g, &v, &v, 1, o);
      expect(v == (me % 2 == 0 ? 0 + 2 : 1 + 3), "allreduce on the group's links");
      for (const auto& b : local_link_bindings(*g))
        expect(b.local.rfind("127.0.0.2:", 0) == 0 && b.remote.rfind("127.0.0.2:", 0) == 0,
               "bound " + b.local + " -> " + b.remote);
      // The world keeps its own links, and both stay usable, interleaved.
      double w = 1;
      allreduce(world, &w, &w, 1, o);
      allreduce(*g, &v, &v, 1, o);
      expect(w == 4 && v == (me % 2 == 0 ? 4 : 8), "interleaved");
    });
    CHECK(r.exit_code == 0);
  }
}
