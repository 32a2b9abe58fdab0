// Table-driven tests of every rule row: the cases live in
// tests/fixtures/translate/cases.toml (expected values worked out from
// comm-params.md); this file runs them and checks that they cover every row,
// every value-map entry and both range edges of every numeric row. Each int
// variable of the target libraries also gets its range edges checked in
// --check mode (one past an edge is invalid), generated from the tables.
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <toml.hpp>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/translator.h"
#include "compat/translate/value_check.h"

using namespace hn::compat::translate;
using hn::compat::InputError;

namespace {

const RuleBook& book() {
  static const RuleBook b = RuleBook::load();
  return b;
}

struct Case {
  std::string name, table, check, platform = "a2", detail, error;
  std::map<std::string, std::string> env, expect, outcome;
  toml::value ctx;
  int line = 0;
};

std::map<std::string, std::string> strings(const toml::value& v, const char* key) {
  std::map<std::string, std::string> out;
  if (!v.contains(key)) return out;
  for (const auto& [k, e] : v.at(key).as_table()) out[k] = e.as_string().str;
  return out;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::string path = std::string(HN_FIXTURE_DIR) + "/translate/cases.toml";
    std::istringstream is(hn::compat::read_text_file(path));
    toml::value root = toml::parse(is, path);
    std::vector<Case> out;
    for (const auto& c : toml::find<toml::array>(root, "case")) {
      Case k;
      k.line = static_cast<int>(c.location().line());
      k.name = toml::find_or<std::string>(c, "name", "");
      k.table = toml::find_or<std::string>(c, "table", "");
      k.check = toml::find_or<std::string>(c, "check", "");
      k.platform = toml::find_or<std::string>(c, "platform", "a2");
      k.detail = toml::find_or<std::string>(c, "detail", "");
      k.error = toml::find_or<std::string>(c, "error", "");
      k.env = strings(c, "env");
      k.expect = strings(c, "expect");
      k.outcome = strings(c, "outcome");
      if (c.contains("ctx")) k.ctx = c.at("ctx");
      out.push_back(std::move(k));
    }
    return out;
  }();
  return all;
}

RuleSet rules_for(const Case& c) {
  if (!c.check.empty()) return book().for_check(c.check);
  size_t at = c.table.find("-to-");
  return book().for_translation(c.table.substr(0, at), c.table.substr(at + 4));
}

Context context_for(const Case& c) {
  Context ctx;
  ctx.platform = c.platform;
  if (!c.ctx.is_table()) return ctx;
  auto str = [&](const char* k) { return toml::find_or<std::string>(c.ctx, k, ""); };
  if (c.ctx.contains("pfc"))
    ctx.pfc_priority = static_cast<int>(toml::find<long long>(c.ctx, "pfc"));
  if (c.ctx.contains("pg_timeout")) ctx.pg_timeout_s = toml::find<double>(c.ctx, "pg_timeout");
  if (!str("ports").empty()) ctx.ephemeral = parse_port_spec(str("ports")).ranges.front();
  if (!str("reserved").empty()) ctx.reserved = parse_port_list(str("reserved"));
  ctx.ports_source = "case";
  if (!str("nic").empty() || !str("prefix").empty() || !str("node_ip").empty() ||
      !str("unresolved").empty()) {
    ParamPlane p;
    p.plane = "param0";
    p.nic_exact = str("nic");
    p.nic_prefix = str("prefix");
    p.node_ip = str("node_ip");
    p.unresolved = str("unresolved");
    std::string subnet = str("subnet");
    p.contains_ip = [subnet](const std::string& ip) {
      return !subnet.empty() && ip.rfind(subnet, 0) == 0;
    };
    ctx.param = p;
    ctx.profile_name = "case";
  }
  return ctx;
}

std::vector<EnvEntry> entries_for(const std::map<std::string, std::string>& env) {
  std::vector<EnvEntry> out;
  int line = 0;
  for (const auto& [k, v] : env) {  // sorted by name, so conflicts resolve the same way each run
    EnvEntry e;
    e.name = k;
    e.value = e.raw = v;
    e.file = "t.env";
    e.line = ++line;
    out.push_back(e);
  }
  return out;
}

std::map<std::string, std::string> env_of(const Translation& t) {
  std::map<std::string, std::string> m;
  for (const auto& l : t.env) m[l.name] = l.value;
  return m;
}

}  // namespace

TEST_CASE("rule cases: every case gives the expected environment and outcomes") {
  REQUIRE(cases().size() > 100);
  for (const auto& c : cases()) {
    INFO("cases.toml:" << c.line << " " << c.name << " [" << c.table << c.check << "]");
    RuleSet rules = rules_for(c);
    Context ctx = context_for(c);
    if (!c.error.empty()) {
      // A value its variable's type rejects is needs-review on that variable,
      // with the parser's words, and nothing is written for it; the run goes on.
      Translation t = translate(entries_for(c.env), rules, book(), ctx);
      std::string detail;
      bool review = false;
      for (const auto& v : t.vars)
        if (v.outcome == Outcome::kNeedsReview) {
          review = true;
          detail += v.detail + " | ";
        }
      CHECK(review);
      std::string want = c.error;
      if (size_t q = want.find(": '"); q != std::string::npos) {
        size_t end = want.find("': ", q + 3);
        if (end != std::string::npos) want = want.substr(end + 3);
      }
      CHECK_THAT(detail, Catch::Contains(want));
      continue;
    }
    Translation t = translate(entries_for(c.env), rules, book(), ctx);
    CHECK(env_of(t) == c.expect);
    std::string details;
    for (const auto& [var, want] : c.outcome) {
      INFO("variable " << var);
      auto it = std::find_if(t.vars.begin(), t.vars.end(),
                             [&](const VarResult& v) { return v.input.name == var; });
      REQUIRE(it != t.vars.end());
      CHECK(to_string(it->outcome) == want);
    }
    for (const auto& v : t.vars) details += v.detail + " | ";
    if (!c.detail.empty()) CHECK_THAT(details, Catch::Contains(c.detail));
  }
}

TEST_CASE("rule cases: every row of every table has a case for each of its variables") {
  for (const auto& [name, table] : book().maps())
    for (const auto& row : table.rows)
      for (const auto& var : row.from) {
        INFO(name << " row " << row.id() << ": no case sets " << var);
        bool found = std::any_of(cases().begin(), cases().end(), [&](const Case& c) {
          return c.table == name && c.env.count(var);
        });
        CHECK(found);
      }
}

TEST_CASE("rule cases: every value-map entry is exercised") {
  for (const auto& [name, table] : book().maps())
    for (const auto& row : table.rows) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : row.values) keys.push_back(k);
      for (const auto& [k, v] : row.drop_values) keys.push_back(k);
      for (const auto& key : keys) {
        INFO(name << " row " << row.id() << ": no case maps " << key);
        bool found = std::any_of(cases().begin(), cases().end(), [&](const Case& c) {
          auto it = c.env.find(row.from.front());
          return c.table == name && it != c.env.end() && to_lower(it->second) == to_lower(key);
        });
        CHECK(found);
      }
    }
}

TEST_CASE("rule cases: numeric rows reach both edges of the range they can produce") {
  for (const auto& [name, table] : book().maps()) {
    size_t at = name.find("-to-");
    RuleSet rs = book().for_translation(name.substr(0, at), name.substr(at + 4));
    for (const auto& row : table.rows) {
      if (row.action != "map" || row.convert != "value" || !row.values.empty() ||
          row.multiply != 1 || row.divide != 1)
        continue;
      const VarSpec* dst = rs.target(row.to.front());
      const VarSpec* src = rs.source(row.from.front());
      if (!dst || dst->type != "int" || !dst->min || !dst->max) continue;
      long long lo = *dst->min, hi = *dst->max;
      if (src && src->min) lo = std::max(lo, *src->min);
      if (src && src->max) hi = std::min(hi, *src->max);
      for (long long m : {dst->multiple_of, src ? src->multiple_of : 0})
        if (m > 0) hi -= hi % m;
      std::set<std::string> produced;
      for (const auto& c : cases())
        if (c.table == name && c.expect.count(row.to.front()))
          produced.insert(c.expect.at(row.to.front()));
      INFO(name << " row " << row.id() << " -> " << row.to.front() << " [" << lo << ", " << hi
                << "]");
      CHECK(produced.count(std::to_string(lo)));
      CHECK(produced.count(std::to_string(hi)));
    }
  }
}

TEST_CASE("rule cases: --check holds every int variable to its range edges") {
  for (const char* lib : {"hccl", "nccl"}) {
    RuleSet rs = book().for_check(lib);
    Context ctx;
    for (const auto& [name, spec] : rs.target_vars) {
      if (spec.type != "int" || !spec.min || !spec.max) continue;
      long long m = spec.multiple_of;
      long long lo = *spec.min, hi = m ? *spec.max - *spec.max % m : *spec.max;
      auto run = [&](long long v) {
        EnvEntry e;
        e.name = name;
        e.value = e.raw = std::to_string(v);
        e.file = "t.env";
        e.line = 1;
        return translate({e}, rs, book(), ctx).vars.front();
      };
      INFO(lib << " " << name << " [" << lo << ", " << hi << "]");
      for (long long edge : {lo, hi}) {
        VarResult r = run(edge);
        CHECK(r.outcome == Outcome::kTranslated);
        REQUIRE(r.outputs.size() == 1);
        CHECK(r.outputs[0].second == std::to_string(edge));
      }
      // --check: a value its own library rejects is invalid (FAIL), and the
      // nearest valid value is what --out writes.
      VarResult below = run(lo - 1);
      CHECK(below.outcome == Outcome::kInvalid);
      CHECK(below.outputs[0].second == std::to_string(lo));
      CHECK_THAT(below.todo, Catch::Contains("Set " + name + "=" + std::to_string(lo)));
      if (!spec.infinite_from || *spec.max + 1 < *spec.infinite_from) {
        VarResult above = run(*spec.max + 1);
        CHECK(above.outcome == Outcome::kInvalid);
        CHECK(above.outputs[0].second == std::to_string(hi));
      }
    }
  }
}
