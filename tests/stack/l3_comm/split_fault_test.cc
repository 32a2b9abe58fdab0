// A rank SIGKILLed between two collectives of its group (a split of the
// world): every survivor, in that group or not, throws PeerDiedError naming
// the dead rank of the world, well inside the timeout.

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "stack/l3_comm/collectives.h"
#include "stack/l3_comm/split.h"
#include "tests/stack/l3_comm/rank_harness.h"
#include "tests/support/temp_dir.h"

using namespace hn::stack::comm;

TEST_CASE("split: a rank killed inside a group collective is named by the group's survivors") {
  for (TransportKind t : {TransportKind::kShm, TransportKind::kTcp}) {
    INFO(to_string(t));
    hn::test::TempDir dir;
    hn::test::RankSetup setup;
    setup.transport = t;
    setup.timeout = std::chrono::milliseconds(8000);
    const auto start = std::chrono::steady_clock::now();
    auto r = hn::test::run_ranks(4, setup, [&](Communicator& world) {
      const int me = world.rank();
      auto col = split(world, me % 2, me, "col");  // {0,2} and {1,3}
      Options o;
      o.dtype = hn::stack::op::DType::kF32;
      std::vector<float> v(1 << 16, 1.0f);
      // The first collective is inside the try too: rank 3 leaves it before
      // the others may have, and a death notice interrupts whatever
      // collective a survivor is in, even one whose remaining transfers do
      // not involve the dead rank (a barrier after it was tried: rank 0 was
      // then interrupted in the barrier, under ctest -j2).
      std::string outcome = "ok";
      try {
        allreduce(*col, v.data(), v.data(), v.size(), o);
        if (me == 3) kill(getpid(), SIGKILL);  // dies between two of its group's collectives
        for (int i = 0; i < 50; ++i) allreduce(*col, v.data(), v.data(), v.size(), o);
        barrier(world);
      } catch (const PeerDiedError& e) {
        outcome = "died " + std::to_string(e.dead_rank()) + " | " + e.what();
      } catch (const std::exception& e) {
        outcome = std::string("other | ") + e.what();
      }
      std::ofstream(dir.path() + "/rank" + std::to_string(me)) << outcome;
      if (outcome != "ok") throw std::runtime_error(outcome);
    });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.exit_code != 0);
    CHECK(seconds < 8);  // well inside the timeout: the death is reported, not timed out
    // Rank 1 shares the group with rank 3: it must name rank 3 (a parent rank).
    std::string r1 = hn::test::read_file(dir.path() + "/rank1");
    INFO(r1);
    CHECK_THAT(r1, Catch::StartsWith("died 3 | rank 1: allreduce (ring) in group"));
    CHECK_THAT(r1, Catch::Contains("(ranks 1,3): peer closed: rank 3 died"));
    // Ranks 0 and 2 learn of it too, at the latest in the world barrier.
    for (int rank : {0, 2}) {
      std::string s = hn::test::read_file(dir.path() + "/rank" + std::to_string(rank));
      INFO(s);
      CHECK_THAT(s, Catch::StartsWith("died 3 | "));
    }
  }
}

TEST_CASE("split: a death elsewhere interrupts a group blocked on links of its own") {
  hn::test::TempDir dir;
  hn::test::RankSetup setup;
  setup.transport = TransportKind::kShm;
  setup.timeout = std::chrono::milliseconds(8000);
  auto r = hn::test::run_ranks(4, setup, [&](Communicator& world) {
    const int me = world.rank();
    LinkParams plane;
    plane.plane = "other";
    plane.bind_address = "127.0.0.2";
    auto g = split(world, me % 2, me, "own", &plane);  // {0,2} and {1,3} on their own links
    if (me == 1) kill(getpid(), SIGKILL);
    if (me != 0) {
      std::this_thread::sleep_for(std::chrono::seconds(20));  // alive, but never answers
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::string outcome = "ok";
    try {
      double v = 1;
      Options o;
      o.dtype = hn::stack::op::DType::kF64;
      allreduce(*g, &v, &v, 1, o);  // rank 2 never joins: only the death notice ends this
    } catch (const PeerDiedError& e) {
      outcome = "died " + std::to_string(e.dead_rank());
    } catch (const std::exception& e) {
      outcome = std::string("other ") + e.what();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ofstream(dir.path() + "/rank0") << outcome << " " << s;
    throw std::runtime_error(outcome);
  });
  CHECK(r.exit_code != 0);
  std::string got = hn::test::read_file(dir.path() + "/rank0");
  INFO(got);
  CHECK_THAT(got, Catch::StartsWith("died 1 "));
  CHECK(std::stod(got.substr(got.rfind(' '))) < 4.0);  // the 8 s timeout was not waited out
}
