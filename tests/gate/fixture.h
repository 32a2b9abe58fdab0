#pragma once
// The text of a file under tests/fixtures/gate/.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace hn::test {

inline std::string gate_fixture(const std::string& name) {
  std::ifstream in(std::string(HN_FIXTURE_DIR) + "/gate/" + name);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace hn::test
