#include "compat/yaml_input.h"

#include <catch2/catch.hpp>

using hn::compat::InputError;
using hn::compat::YamlMap;

namespace {
YAML::Node doc(const std::string& text) { return hn::compat::load_yaml_text(text, "t.yaml"); }
}  // namespace

TEST_CASE("malformed YAML names the file and line") {
  try {
    doc("a: 1\nb: [1, 2\nc: 3\n");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.file() == "t.yaml");
    CHECK(e.line() >= 2);
    CHECK(std::string(e.what()).find("t.yaml:") == 0);
  }
}

TEST_CASE("an unknown key is rejected by name with its line and the allowed keys") {
  YamlMap m(doc("name: x\nmtuu: 9000\n"), "t.yaml", "planes[0]");
  CHECK(m.req_string("name") == "x");
  m.opt_int("mtu", 1, 65536);
  try {
    m.finish();
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.line() == 2);
    CHECK(e.field() == "planes[0].mtuu");
    std::string what = e.what();
    CHECK(what.find("unknown key 'mtuu'") != std::string::npos);
    CHECK(what.find("allowed: mtu, name") != std::string::npos);
  }
}

TEST_CASE("integers are range-checked and typed") {
  YamlMap m(doc("a: 12\nb: big\nc: 99999\nd: [1]\n"), "t.yaml", "");
  CHECK(m.opt_int("a", 0, 100) == 12);
  CHECK_THROWS_WITH(m.opt_int("b", 0, 100), Catch::Contains("expected an integer, got 'big'"));
  CHECK_THROWS_WITH(m.opt_int("c", 0, 100), Catch::Contains("out of range [0, 100]"));
  CHECK_THROWS_WITH(m.opt_int("d", 0, 100), Catch::Contains("expected an integer, got a list"));
  CHECK_FALSE(m.opt_int("missing", 0, 1).has_value());
}

TEST_CASE("required fields, booleans, numbers and string lists") {
  YamlMap m(doc("flag: yes\nratio: 2.5\nlist: [a, b]\nsingle: c\nbadflag: maybe\n"), "t.yaml", "s");
  CHECK(m.opt_bool("flag") == true);
  CHECK(m.opt_number("ratio") == Approx(2.5));
  CHECK(m.string_list("list") == std::vector<std::string>{"a", "b"});
  CHECK(m.string_list("single") == std::vector<std::string>{"c"});
  CHECK_THROWS_WITH(m.opt_bool("badflag"), Catch::Contains("expected true or false"));
  CHECK_THROWS_WITH(m.required("nothere"), Catch::Contains("s.nothere: missing required field"));
}

TEST_CASE("a scalar where a map is expected is an error") {
  CHECK_THROWS_WITH(YamlMap(doc("just text"), "t.yaml", "planes"),
                    Catch::Contains("expected a map"));
}

TEST_CASE("a missing file is an InputError naming the path") {
  CHECK_THROWS_WITH(hn::compat::load_yaml_file("/nonexistent/p.yaml"),
                    Catch::Contains("/nonexistent/p.yaml: cannot open"));
}
