#include "compat/yaml_input.h"

#include <catch2/catch.hpp>

using hn::compat::InputError;
using hn::compat::YamlMap;

namespace {
YAML::Node doc(const std::string& text) {
  return hn::compat::load_yaml_text(text, "t.yaml");
}
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

TEST_CASE("a key given twice in one map is rejected with both lines") {
  try {
    doc("version: 1\nphysical:\n  min_memory_gib: 1\n  min_memory_gib: 100000\n");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.line() == 4);
    CHECK(e.field() == "physical.min_memory_gib");
    CHECK_THAT(e.what(), Catch::Contains("duplicate key 'min_memory_gib' (first at line 3)"));
  }
  // Inside lists and flow maps too; the same key in two different maps is fine.
  CHECK_THROWS_WITH(doc("planes:\n  - {name: a, name: b}\n"),
                    Catch::Contains("t.yaml:2:") && Catch::Contains("planes[0].name") &&
                        Catch::Contains("duplicate key 'name'"));
  CHECK_NOTHROW(doc("planes:\n  - {name: a}\n  - {name: b}\nnodes: [{name: a}]\n"));
  // Aliases are walked as one event, not expanded.
  CHECK_NOTHROW(doc("a: &x {k: 1}\nb: *x\nc: *x\n"));
}

TEST_CASE("a second YAML document is rejected and an empty trailing one is fine") {
  try {
    doc("version: 1\n---\nversion: 1\nphysical: {min_memory_gib: 1}\n");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("second YAML document"));
  }
  CHECK(doc("version: 1\n---\n")["version"].as<int>() == 1);
  CHECK(doc("---\nversion: 1\n...\n")["version"].as<int>() == 1);
  CHECK(doc("").IsNull());
  // A stream of several documents is read whole where several are expected.
  auto docs = hn::compat::load_yaml_documents("a: 1\n---\nb: 2\n", "t.yaml");
  REQUIRE(docs.size() == 2);
  CHECK(docs[1]["b"].as<int>() == 2);
  CHECK_THROWS_WITH(hn::compat::load_yaml_documents("a: 1\n---\nb: 2\nb: 3\n", "t.yaml"),
                    Catch::Contains("t.yaml:4:") && Catch::Contains("duplicate key 'b'"));
}

TEST_CASE("integers are decimal only and numbers take no hex") {
  YamlMap m(doc("a: 010\nb: 0x10\nc: -7\nd: +8\ne: 1_000\nf: 0o10\ng: 1e3\nh: 0x1p4\ni: ' 5'\n"),
            "t.yaml", "");
  CHECK(m.opt_int("a", 0, 100) == 10);
  CHECK_THROWS_WITH(m.opt_int("b", 0, 100),
                    Catch::Contains("expected an integer, got '0x10' (decimal digits only)"));
  CHECK(m.opt_int("c", -10, 10) == -7);
  CHECK(m.opt_int("d", 0, 10) == 8);
  CHECK_THROWS_WITH(m.opt_int("e", 0, 10000), Catch::Contains("expected an integer"));
  CHECK_THROWS_WITH(m.opt_int("f", 0, 100), Catch::Contains("expected an integer"));
  CHECK(m.opt_number("g") == Approx(1000));
  CHECK_THROWS_WITH(m.opt_number("h"), Catch::Contains("expected a number, got '0x1p4'"));
  CHECK_THROWS_WITH(m.opt_int("i", 0, 10), Catch::Contains("expected an integer"));
  YamlMap big(doc("x: 99999999999999999999\n"), "t.yaml", "");
  CHECK_THROWS_WITH(big.opt_int("x", 0, 10), Catch::Contains("out of range [0, 10]"));
}

TEST_CASE("load_yaml_file refuses what is not a regular file") {
  CHECK_THROWS_WITH(hn::compat::load_yaml_file("/dev/zero"),
                    Catch::Contains("/dev/zero: is a character device"));
}
