#include "reports/catalog.h"

#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>

#include "tests/reports/ere_match.h"

using namespace hn::reports;

namespace {

// The {names} a template uses, skipping the "{{" literal brace.
std::set<std::string> placeholders(std::string_view tmpl) {
  std::set<std::string> names;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '{') continue;
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t end = tmpl.find('}', i);
    REQUIRE(end != std::string_view::npos);
    names.insert(std::string(tmpl.substr(i + 1, end - i - 1)));
    i = end;
  }
  return names;
}

// Every placeholder of the entry, each with a value that names it, so the
// rendered text shows which placeholders were substituted.
Params params_for(const CatalogEntry& e) {
  Params p;
  for (auto tmpl : {e.ok, e.problem, e.remediation})
    for (const auto& name : placeholders(tmpl)) p[name] = "<" + name + ">";
  return p;
}

void check_substituted(std::string_view tmpl, const std::string& rendered) {
  for (const auto& name : placeholders(tmpl)) {
    INFO("placeholder {" << name << "} in: " << tmpl);
    CHECK(rendered.find("<" + name + ">") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("catalog codes are unique and well formed") {
  std::set<std::string_view> seen;
  REQUIRE_FALSE(catalog().empty());
  for (const auto& e : catalog()) {
    INFO("code " << e.code);
    CHECK(test::ere_search(std::string(e.code), "^[A-Z0-9]+(-[A-Z0-9]+)+$"));
    CHECK(seen.insert(e.code).second);
    CHECK_FALSE(e.title.empty());
    CHECK_FALSE(e.ok.empty());
    CHECK_FALSE(e.problem.empty());
    CHECK_FALSE(e.remediation.empty());
    CHECK(static_cast<int>(e.layer) >= 1);
    CHECK(static_cast<int>(e.layer) <= 7);
    CHECK(&catalog_entry(e.code) == &e);
  }
}

TEST_CASE("every catalog template renders with its own placeholders") {
  for (const auto& e : catalog()) {
    INFO("code " << e.code);
    Params p = params_for(e);

    Finding pass = make_finding(e.code, Status::kPass, "node0", p);
    CHECK(pass.code == e.code);
    CHECK(pass.layer == e.layer);
    CHECK(pass.status == Status::kPass);
    CHECK(pass.entity == "node0");
    CHECK(pass.remediation.empty());
    check_substituted(e.ok, pass.message);
    for (const auto& [k, v] : p) CHECK(pass.evidence.at(k) == v);

    for (Status s : {Status::kWarn, Status::kFail}) {
      Finding f = make_finding(e.code, s, "node0", p);
      CHECK(f.status == s);
      check_substituted(e.problem, f.message);
      check_substituted(e.remediation, f.remediation);
    }

    Params with_reason = p;
    with_reason["reason"] = "not configured";
    Finding skip = make_finding(e.code, Status::kSkip, "node0", with_reason);
    CHECK(skip.message.find("not configured") != std::string::npos);
    Finding error = make_finding(e.code, Status::kError, "node0", with_reason);
    CHECK_FALSE(error.remediation.empty());
  }
}

TEST_CASE("SKIP and ERROR findings need a reason") {
  auto code = catalog().front().code;
  CHECK_THROWS_AS(make_finding(code, Status::kSkip, "x"), std::logic_error);
  CHECK_THROWS_WITH(make_finding(code, Status::kError, "x"), Catch::Contains("reason"));
}

TEST_CASE("render_template substitutes, keeps literal braces and names a missing placeholder") {
  CHECK(render_template("{a} and {b}", {{"a", "1"}, {"b", "2"}}) == "1 and 2");
  CHECK(render_template("{{literal}", {}) == "{literal}");
  CHECK(render_template("no placeholders", {}) == "no placeholders");
  CHECK_THROWS_AS(render_template("{missing}", {{"other", "x"}}), std::logic_error);
  CHECK_THROWS_WITH(render_template("x {missing} y", {}), Catch::Contains("{missing}"));
  CHECK_THROWS_AS(render_template("open {brace", {}), std::logic_error);
}

TEST_CASE("unknown codes are rejected by name") {
  CHECK_THROWS_AS(catalog_entry("NO-SUCH-CODE"), std::logic_error);
  CHECK_THROWS_WITH(make_finding("NO-SUCH-CODE", Status::kPass, "x"),
                    Catch::Contains("NO-SUCH-CODE"));
}

TEST_CASE("a missing template parameter is an error, not an empty substitution") {
  for (const auto& e : catalog()) {
    Params p = params_for(e);
    auto names = placeholders(e.problem);
    if (names.empty()) continue;
    INFO("code " << e.code);
    p.erase(*names.begin());
    CHECK_THROWS_AS(make_finding(e.code, Status::kFail, "x", p), std::logic_error);
  }
}
