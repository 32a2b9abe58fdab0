#include "stack/l5_sched/local_launcher.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"

using namespace hn::stack::sched;
using namespace std::chrono_literals;

TEST_CASE("the launcher forks N ranks with the identity environment and forwards success") {
  hn::test::TempDir dir;
  LaunchOptions o;
  o.ranks = 3;
  auto res = launch_local(o, [&](int rank) {
    std::ofstream f(dir.path() + "/" + std::to_string(rank));
    f << std::getenv("HN_RANK") << " " << std::getenv("HN_WORLD_SIZE") << " "
      << std::getenv("HN_LOCAL_RANK") << " "
      << (std::getenv("HN_TOKEN") ? std::string(std::getenv("HN_TOKEN")).size() : 0) << " "
      << (std::getenv("HN_STORE_FD") ? "fd" : "nofd");
    return 0;
  });
  CHECK(res.exit_code == 0);
  CHECK(res.first_failed_rank == -1);
  for (int r = 0; r < 3; ++r) {
    std::string got = hn::test::read_file(dir.path() + "/" + std::to_string(r));
    CHECK(got == std::to_string(r) + " 3 " + std::to_string(r) + " 64 " + (r == 0 ? "fd" : "nofd"));
  }
}

TEST_CASE("a failing rank's exit status is forwarded and the others are stopped") {
  LaunchOptions o;
  o.ranks = 3;
  o.stop_delay = 200ms;
  o.kill_grace = 300ms;
  auto t0 = std::chrono::steady_clock::now();
  auto res = launch_local(o, [](int rank) {
    if (rank == 1) return 7;
    if (rank == 2) signal(SIGTERM, SIG_IGN);  // must still die: SIGKILL after the grace
    std::this_thread::sleep_for(60s);
    return 0;
  });
  CHECK(res.exit_code == 7);
  CHECK(res.first_failed_rank == 1);
  CHECK(res.first_failure == "exit code 7");
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);
}

TEST_CASE("a rank killed by a signal is reported as 128 + signal") {
  LaunchOptions o;
  o.ranks = 2;
  o.stop_delay = 100ms;
  auto res = launch_local(o, [](int rank) {
    if (rank == 0) raise(SIGKILL);
    std::this_thread::sleep_for(60s);
    return 0;
  });
  CHECK(res.exit_code == 128 + SIGKILL);
  CHECK(res.first_failed_rank == 0);
  CHECK(res.first_failure.find("signal 9") != std::string::npos);
}

TEST_CASE("ranks are bound round-robin to the allowed CPUs, also when they outnumber them") {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const int k = static_cast<int>(cpus.size());
  // One rank per CPU, then twice as many ranks as CPUs plus one.
  for (int n : {k, 2 * k + 1}) {
    hn::test::TempDir dir;
    LaunchOptions o;
    o.ranks = n;
    auto res = launch_local(o, [&](int rank) {
      cpu_set_t got;
      CPU_ZERO(&got);
      sched_getaffinity(0, sizeof got, &got);
      std::ofstream f(dir.path() + "/" + std::to_string(rank));
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &got)) f << c << " ";
      return 0;
    });
    REQUIRE(res.exit_code == 0);
    for (int r = 0; r < n; ++r) {
      INFO("ranks " << n << " rank " << r);
      CHECK(hn::test::read_file(dir.path() + "/" + std::to_string(r)) ==
            std::to_string(cpus[static_cast<std::size_t>(r % k)]) + " ");
    }
  }
}
