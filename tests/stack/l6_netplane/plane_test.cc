#include "stack/l6_netplane/plane.h"

#include <catch2/catch.hpp>

using namespace hn::stack::netplane;

TEST_CASE("plane types round-trip and unknown ones are rejected") {
  for (auto t : {PlaneType::kParameter, PlaneType::kData, PlaneType::kStorage,
                 PlaneType::kManagement, PlaneType::kBusiness})
    CHECK(plane_type_from_string(to_string(t)) == t);
  CHECK_THROWS_WITH(plane_type_from_string("param"), Catch::Contains("expected parameter"));
}

TEST_CASE("NIC globs") {
  CHECK(nic_matches("ens1f*", "ens1f0"));
  CHECK(nic_matches("eth1", "eth1"));
  CHECK_FALSE(nic_matches("eth1", "eth10"));
  CHECK(nic_matches("eth[01]", "eth0"));
  CHECK_FALSE(nic_matches("eth[01]", "eth2"));
}
