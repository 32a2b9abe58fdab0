#include "stack/l5_sched/hostlist.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using hn::stack::sched::expand_hostlist;
using hn::stack::sched::first_host;
using V = std::vector<std::string>;

TEST_CASE("hostlist expands Slurm ranges with their padding") {
  CHECK(expand_hostlist("n01") == V{"n01"});
  CHECK(expand_hostlist("n[01-04,07]") == V{"n01", "n02", "n03", "n04", "n07"});
  CHECK(expand_hostlist("a,b[1-2],c") == V{"a", "b1", "b2", "c"});
  CHECK(expand_hostlist("rack[1-2]-n[1-2]") == V{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"});
  CHECK(expand_hostlist("gpu[098-101]") == V{"gpu098", "gpu099", "gpu100", "gpu101"});
  CHECK(expand_hostlist("x[5]") == V{"x5"});
}

TEST_CASE("first_host takes the first host without expanding the rest") {
  CHECK(first_host("n[01-04,07]") == "n01");
  CHECK(first_host("login,n[1-99999]") == "login");
  CHECK(first_host("node-a") == "node-a");
  CHECK(first_host("p[3-4]x,q") == "p3x");
}

TEST_CASE("malformed hostlists are rejected by name") {
  for (const char* bad : {"", "n[01-04", "n01-04]", "n[04-01]", "n[a-b]", "n[]", "n[1,,2]", "a,,b",
                          "n[[1]]", "n[1-2000000]", "n 1"}) {
    INFO(bad);
    CHECK_THROWS_AS(expand_hostlist(bad), std::invalid_argument);
  }
  CHECK_THROWS_WITH(first_host("n[1-"), Catch::Contains("n[1-"));
}
