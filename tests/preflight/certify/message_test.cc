#include "preflight/certify/message.h"

#include <catch2/catch.hpp>
#include <string>

#include "compat/input_error.h"

using hn::preflight::certify::parse_message;

TEST_CASE("certify message: a good message parses, a broken or deep one is an internal error") {
  CHECK(parse_message(R"({"phase":"links","ok":true})").at("phase") == "links");
  // Truncated, and nested past the guard's depth: never an InputError (exit 2).
  for (const std::string& bad : {std::string(R"({"phase":)"), std::string(10000, '[')}) {
    try {
      parse_message(bad, "rank 1's result");
      FAIL("accepted: " << bad.substr(0, 20));
    } catch (const hn::compat::InputError&) {
      FAIL("a peer's message was reported as bad user input");
    } catch (const std::runtime_error& e) {
      CHECK_THAT(e.what(), Catch::Contains("malformed message between ranks") &&
                               Catch::Contains("rank 1's result"));
    }
  }
}
