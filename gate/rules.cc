#include "gate/rules.h"

#include <fnmatch.h>

#include "compat/toml_input.h"
#include "compat/toml_table.h"
#include "gate/toml_version.h"

namespace hn::gate {

namespace {

// What a missing item costs: "fail" or "warn"; nullopt when the key is absent.
std::optional<reports::Status> missing_of(compat::TomlTable& t, const char* key) {
  if (!t.get(key)) return std::nullopt;
  const std::string s = t.str(key);
  if (s == "fail") return reports::Status::kFail;
  if (s == "warn") return reports::Status::kWarn;
  t.fail(*t.get(key), t.field(key), "'" + s + "' is not allowed (expected fail or warn)");
}

// The threshold keys a table ([defaults] or a [[metric]]) may carry.
void read_thresholds(compat::TomlTable& t, MetricRule& r) {
  r.false_alarm = t.number("false_alarm");
  r.k = t.number("k");
  r.detect = t.number("detect");
  r.min_change = t.number("min_change");
  r.min_abs = t.number("min_abs");
  r.fallback_change = t.number("fallback_change");
  r.beyond_range = t.boolean("beyond_range");
  if (auto n = t.integer("min_runs")) {
    if (*n < 1 || *n > 1000000)
      t.fail(*t.get("min_runs"), t.field("min_runs"), "must be in [1, 1000000]");
    r.min_runs = static_cast<int>(*n);
  }
}

void check_thresholds(compat::TomlTable& t, const Thresholds& th) {
  if (std::string why = threshold_problem(th); !why.empty()) {
    const std::string key = why.substr(0, why.find(' '));
    const toml::value* at = t.get(key);
    t.fail(at ? *at : t.value(), t.field(key), why);
  }
}

MetricRule parse_metric(compat::TomlTable& t, const std::string& file, const Rules& rules) {
  MetricRule r;
  r.origin = file + ":" + std::to_string(t.line());
  r.name = t.str("name", "*");
  r.labels = t.string_map("labels");
  read_thresholds(t, r);
  if (const toml::value* b = t.get("better")) {
    try {
      r.better = reports::better_from_string(t.str("better"));
    } catch (const std::invalid_argument& e) {
      t.fail(*b, t.field("better"), e.what());
    }
  }
  r.missing = missing_of(t, "missing");
  r.ignore = t.boolean("ignore").value_or(false);
  const bool sets_something = r.false_alarm || r.k || r.min_change || r.min_abs ||
                              r.fallback_change || r.detect || r.min_runs || r.beyond_range ||
                              r.better || r.missing || r.ignore;
  if (!sets_something)
    t.fail(t.value(), t.field("name"),
           "this rule sets nothing (give false_alarm, k, min_change, min_abs, min_runs, "
           "fallback_change, detect, beyond_range, better, missing or ignore)");
  check_thresholds(t, rules.thresholds(&r));
  t.finish();
  return r;
}

CheckRule parse_check(compat::TomlTable& t, const std::string& file) {
  CheckRule r;
  r.origin = file + ":" + std::to_string(t.line());
  r.code = t.str("code", "*");
  r.entity = t.str("entity", "*");
  r.host = t.str("host", "*");
  r.missing = missing_of(t, "missing");
  r.ignore = t.boolean("ignore").value_or(false);
  if (!r.missing && !r.ignore)
    t.fail(t.value(), t.field("code"), "this rule sets nothing (give missing or ignore)");
  t.finish();
  return r;
}

}  // namespace

const MetricRule* Rules::metric_rule(const reports::Measurement& m) const {
  for (const auto& r : metrics) {
    if (!glob(r.name, m.name)) continue;
    bool all = true;
    for (const auto& [key, pattern] : r.labels) {
      auto it = m.labels.find(key);
      if (it == m.labels.end() || !glob(pattern, it->second)) {
        all = false;
        break;
      }
    }
    if (all) return &r;
  }
  return nullptr;
}

const CheckRule* Rules::check_rule(const Check& c) const {
  for (const auto& r : checks)
    if (glob(r.code, c.code) && glob(r.entity, c.entity) && glob(r.host, c.host)) return &r;
  return nullptr;
}

Thresholds Rules::thresholds(const MetricRule* rule) const {
  Thresholds t = defaults;
  if (!rule) return t;
  if (rule->false_alarm) t.false_alarm = *rule->false_alarm;
  if (rule->k) t.k = *rule->k;
  if (rule->detect) t.detect = *rule->detect;
  if (rule->min_change) t.min_change = *rule->min_change;
  if (rule->min_abs) t.min_abs = *rule->min_abs;
  if (rule->fallback_change) t.fallback_change = *rule->fallback_change;
  if (rule->min_runs) t.min_runs = *rule->min_runs;
  if (rule->beyond_range) t.beyond_range = *rule->beyond_range;
  return t;
}

Rules parse_rules(const std::string& text, const std::string& file) {
  const toml::value root = compat::parse_toml_text(text, file);
  compat::TomlTable t(root, file, "");
  require_version_1(t);
  Rules rules;
  rules.source = file;
  if (const toml::value* d = t.get("defaults")) {
    compat::TomlTable dt(*d, file, "defaults");
    MetricRule over;
    read_thresholds(dt, over);
    rules.defaults = rules.thresholds(&over);
    check_thresholds(dt, rules.defaults);
    dt.finish();
  }
  if (const toml::value* m = t.get("missing")) {
    compat::TomlTable mt(*m, file, "missing");
    rules.metric_missing = missing_of(mt, "metric").value_or(rules.metric_missing);
    rules.check_missing = missing_of(mt, "check").value_or(rules.check_missing);
    rules.snapshot_missing = missing_of(mt, "snapshot").value_or(rules.snapshot_missing);
    mt.finish();
  }
  for (auto& m : t.tables("metric")) rules.metrics.push_back(parse_metric(m, file, rules));
  for (auto& c : t.tables("check")) rules.checks.push_back(parse_check(c, file));
  for (auto& d : t.tables("drift")) rules.drift.push_back(parse_drift_row(d, file));
  t.finish();
  return rules;
}

}  // namespace hn::gate
