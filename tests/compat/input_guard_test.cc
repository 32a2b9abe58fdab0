// The readers' hostile-input guards (compat/input_guard.h and the entry points
// that call it): each case is a reproducer from issue 18 that hung, crashed
// or exhausted memory before the guard. Readers that could hang or blow up
// run in a bounded child (tests/support/bounded_child.h), so a regression is
// a failure with a number rather than a stuck test.

#include "compat/input_guard.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "compat/input_error.h"
#include "compat/json_input.h"
#include "compat/text_file.h"
#include "compat/toml_input.h"
#include "compat/yaml_input.h"
#include "tests/support/bounded_child.h"

using hn::compat::InputError;
using hn::compat::Syntax;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Runs fn in a child with 20 s and 2 GiB of address space; the child exits 2
// when fn threw an InputError whose text contains `expect`, 0 when fn
// returned, 3 for an InputError with other text.
hn::test::ChildOutcome expect_input_error(const std::function<void()>& fn,
                                          const std::string& expect) {
  return hn::test::run_bounded(
      [&] {
        try {
          fn();
          return 0;
        } catch (const InputError& e) {
          return std::string(e.what()).find(expect) != std::string::npos ? 2 : 3;
        }
      },
      20s, 2048 * kMiB);
}

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

void guard(const std::string& text, Syntax s) {
  hn::compat::guard_structured_text(text, "t", s);
}

}  // namespace

TEST_CASE("a stray comma after a flow collection ends with file:line instead of looping (YAML)") {
  // yaml-cpp 0.7 reports an empty document forever after these; the reader
  // looped, recording a line per document, past 1 GB in 30 s.
  for (const char* text : {"[a],", ",", "{a: 1},", "- a\n,", "a: b\n---\n[1],\n"}) {
    INFO(text);
    auto o = expect_input_error([&] { hn::compat::load_yaml_documents(text, "p.yaml"); },
                                "unexpected ',' outside a flow collection");
    INFO(o.describe());
    CHECK(o.finished);
    CHECK(o.exit_code == 2);
  }
  try {
    hn::compat::load_yaml_text("version: 1\n[a],\n", "p.yaml");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.file() == "p.yaml");
    CHECK(e.line() >= 1);
  }
}

TEST_CASE("deep nesting is refused before parsing with file:line:column in every syntax") {
  const std::string deep = repeat("[", 10000);
  for (auto [syntax, text] :
       {std::pair{Syntax::kYaml, deep}, {Syntax::kJson, deep}, {Syntax::kToml, "a = " + deep}}) {
    try {
      guard(text, syntax);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.line() == 1);
      CHECK(e.column() > 100);
      CHECK(e.column() < 110);
      CHECK_THAT(e.what(), Catch::Contains("nested more than 100 levels"));
    }
  }
  // Exactly at the limit is fine.
  CHECK_NOTHROW(guard(repeat("[", 100) + repeat("]", 100), Syntax::kJson));
  CHECK_NOTHROW(guard("a = " + repeat("[", 100) + repeat("]", 100), Syntax::kToml));
  CHECK_NOTHROW(guard(repeat("[", 100) + repeat("]", 100), Syntax::kYaml));
}

TEST_CASE("ten thousand nested arrays or inline tables in a rule table: exit 2 and not SIGSEGV (TOML)") {
  // toml11 3.7 recursed once per level with no limit: a 10 KB --rules file
  // overflowed the stack.
  std::string arrays = "library = \"x\"\na = " + repeat("[", 10000) + "\n";
  std::string tables = "library = \"x\"\na = " + repeat("{b = ", 10000) + "1" + repeat("}", 10000);
  std::string dotted = "library = \"x\"\n" + repeat("a.", 10000) + "a = 1\n";
  std::string header = "[" + repeat("a.", 10000) + "a]\n";
  for (const auto& text : {arrays, tables, dotted, header}) {
    auto o = expect_input_error([&] { hn::compat::parse_toml_text(text, "r.toml"); },
                                "nested more than 100 levels");
    INFO(text.substr(0, 40) << ": " << o.describe());
    CHECK(o.finished);
    CHECK(o.exit_code == 2);
  }
}

TEST_CASE("brackets inside strings and comments and block scalars do not count") {
  const std::string b = repeat("[", 300);
  CHECK_NOTHROW(guard("{\"a\": \"" + b + "\", \"b\": \"\\\"" + b + "\"}", Syntax::kJson));
  CHECK_NOTHROW(guard("a = \"" + b + "\"\nb = '" + b + "'\n# " + b + "\nc = \"\"\"\n" + b +
                          "\n\"\"\"\nd = '''" + b + "'''\n",
                      Syntax::kToml));
  CHECK_NOTHROW(guard("a: \"" + b + "\"\nb: '" + b + "'\n# " + b + "\nc: x" + b + "\nd: |\n  " + b +
                          "\n  " + b + "\ne: >-\n    " + b + "\n",
                      Syntax::kYaml));
  CHECK_NOTHROW(guard("- key: |\n    " + b + "\n  other: 1\n", Syntax::kYaml));
  CHECK_NOTHROW(guard("a: 'it''s " + b + "'\n", Syntax::kYaml));
}

TEST_CASE("a block scalar cannot hide a deep flow collection from the guard (YAML)") {
  // The line after the text is less indented than the text, so YAML reads it
  // as a key of the map: the guard must scan it too.
  std::string text = "- key: |\n      text\n  other: " + repeat("[", 200) + "\n";
  CHECK_THROWS_AS(guard(text, Syntax::kYaml), InputError);
  text = "a: |\n  text\nb: " + repeat("[", 200) + "\n";
  CHECK_THROWS_AS(guard(text, Syntax::kYaml), InputError);
}

TEST_CASE("deep block nesting (indentation and dashes) is refused by the event walk (YAML)") {
  std::string dashes = repeat("- ", 5000) + "x\n";
  auto o = expect_input_error([&] { hn::compat::load_yaml_text(dashes, "p.yaml"); },
                              "nested more than 100 levels");
  INFO(o.describe());
  CHECK(o.exit_code == 2);
  std::string indented;
  for (int i = 0; i < 150; ++i) indented += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  CHECK_THROWS_WITH(hn::compat::load_yaml_text(indented, "p.yaml"),
                    Catch::Contains("nested more than 100 levels"));
}

TEST_CASE("billion laughs: aliases that expand past the limit are refused in bounded memory") {
  // 470 bytes, 10^9 nodes once expanded: the manifest reader followed the
  // aliases past 1.5 GB.
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'i'; ++c, ++prev)
    bomb += std::string(1, c) + ": &" + c + " [" + repeat(std::string("*") + prev + ", ", 8) + "*" +
            prev + "]\n";
  auto o = expect_input_error([&] { hn::compat::load_yaml_documents(bomb, "m.yaml"); },
                              "expand to more than");
  INFO(o.describe());
  CHECK(o.exit_code == 2);
  CHECK(o.peak_rss_kib < 256 * 1024);
  // A few aliases, as real manifests use them, are fine.
  CHECK_NOTHROW(hn::compat::load_yaml_text("base: &env [{name: A, value: '1'}]\nx: *env\ny: *env\n",
                                           "m.yaml"));
  // An alias inside the node it names is a cycle.
  CHECK_THROWS_WITH(hn::compat::load_yaml_text("a: &x [*x]\n", "m.yaml"), Catch::Contains("cycle"));
}

TEST_CASE("YAML memory is bounded at the size cap: 8 and 64 MiB of open brackets and 64 MiB of items") {
  // 8 MiB of [ took 2 GB and 10 s before yaml-cpp refused it; 60 MiB passed 10 GB.
  for (std::size_t mib : {std::size_t{8}, std::size_t{64}}) {
    std::string text(mib * kMiB - 1, '[');
    auto o = expect_input_error([&] { hn::compat::load_yaml_documents(text, "p.yaml"); },
                                "nested more than 100 levels");
    INFO(mib << " MiB: " << o.describe());
    CHECK(o.exit_code == 2);
    // The text itself, plus the test binary: nothing in proportion to the nesting.
    CHECK(o.peak_rss_kib < static_cast<long>(mib * 1024 + 64 * 1024));
  }
  // 16M list items (64 MiB) would be ~8 GB of yaml-cpp nodes; the node count
  // stops the walk before any node is built.
  std::string items = repeat("- a\n", 16 * kMiB - 1);
  auto o =
      expect_input_error([&] { hn::compat::load_yaml_documents(items, "p.yaml"); }, "YAML nodes");
  INFO(o.describe());
  CHECK(o.exit_code == 2);
  CHECK(o.peak_rss_kib < 64 * 1024 + 64 * 1024);
  // One byte past the cap is refused by size.
  CHECK_THROWS_WITH(guard(std::string(hn::compat::kMaxInputBytes + 1, ' '), Syntax::kYaml),
                    Catch::Contains("file too large"));
}

TEST_CASE("TOML and JSON memory is bounded at the size cap (64 MiB of open brackets)") {
  std::string text(64 * kMiB - 8, '[');
  auto o = expect_input_error([&] { hn::compat::parse_toml_text("a = " + text, "r.toml"); },
                              "nested more than 100 levels");
  INFO(o.describe());
  CHECK(o.exit_code == 2);
  CHECK(o.peak_rss_kib < 2 * 64 * 1024 + 64 * 1024);
  o = expect_input_error([&] { hn::compat::parse_json_text(text, "t.json"); },
                         "nested more than 100 levels");
  INFO(o.describe());
  CHECK(o.exit_code == 2);
  CHECK(o.peak_rss_kib < 64 * 1024 + 64 * 1024);
}

TEST_CASE("a JSON number that overflows is bad input naming file:line:column and not exit 3") {
  try {
    hn::compat::parse_json_text("{\"traceEvents\": [\n {\"ts\": 1e400}]}", "t.json");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.file() == "t.json");
    CHECK(e.line() == 2);
    CHECK(e.column() == 9);
    CHECK_THAT(e.what(), Catch::Contains("'1e400'"));
  }
  // An integer past uint64 is read as a double (nlohmann's rule), not refused.
  CHECK(hn::compat::parse_json_text("[123456789012345678901234567890]", "t.json")[0].is_number());
}

TEST_CASE("every real input of the repository passes the guard") {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const char* dir : {"tests/fixtures", "profiles", "examples", "docs"}) {
    fs::path root = fs::path(HN_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension();
      Syntax s;
      if (ext == ".yaml" || ext == ".yml")
        s = Syntax::kYaml;
      else if (ext == ".json")
        s = Syntax::kJson;
      else if (ext == ".toml")
        s = Syntax::kToml;
      else
        continue;
      INFO(e.path());
      CHECK_NOTHROW(guard(hn::compat::read_text_file(e.path()), s));
      ++checked;
    }
  }
  CHECK(checked > 30);
}
