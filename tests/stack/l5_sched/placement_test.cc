#include "stack/l5_sched/placement.h"

#include <catch2/catch.hpp>

using namespace hn::stack::sched;

TEST_CASE("placement: groups across domains, hosts outside any domain, one-host groups") {
  std::vector<Domain> domains = {{"d0", {"a", "b"}}, {"d1", {"c"}}};
  std::vector<std::string> host_of = {"a", "b", "c", "x", "x", "y"};
  auto spans = groups_across_domains(host_of, {{0, 1}, {1, 2}, {3, 4}, {4, 5}}, domains);
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].group == 1);
  CHECK(spans[0].domains == std::vector<std::string>{"d0", "d1"});
  CHECK(spans[1].group == 3);  // x and y are in no domain: "" for both
  CHECK(spans[1].domains == std::vector<std::string>{""});
  CHECK(spans[1].hosts == std::vector<std::string>{"x", "y"});
  CHECK_THROWS_AS(groups_across_domains(host_of, {{0, 9}}, domains), std::invalid_argument);
}

TEST_CASE("placement: ranks per host") {
  auto m = ranks_per_host({"a", "a", "b"});
  CHECK(m.at("a") == 2);
  CHECK(m.at("b") == 1);
}
