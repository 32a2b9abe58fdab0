#include "gate/comparison_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace hn::gate {

namespace {

using nlohmann::ordered_json;

ordered_json num(double v) {
  return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

ordered_json thresholds_json(const Thresholds& t) {
  return {{"false_alarm", t.false_alarm},
          {"k", t.k ? ordered_json(*t.k) : ordered_json(nullptr)},
          {"min_change", t.min_change},
          {"min_abs", t.min_abs},
          {"beyond_range", t.beyond_range},
          {"min_runs", t.min_runs},
          {"fallback_change", t.fallback_change},
          {"detect", t.detect}};
}

ordered_json metric_json(const MetricResult& r) {
  ordered_json j = ordered_json::object();
  j["identity"] = r.identity;
  j["name"] = r.measurement.name;
  ordered_json labels = ordered_json::object();
  for (const auto& [k, v] : r.measurement.labels) labels[k] = v;
  j["labels"] = std::move(labels);
  j["unit"] = r.measurement.unit;
  j["better"] = r.state == MetricState::kUnjudged
                    ? "unknown"
                    : std::string(reports::to_string(r.measurement.better));
  j["layer"] = std::string(reports::to_string(r.layer));
  j["state"] = std::string(to_string(r.state));
  j["rule"] = r.rule;
  if (r.baseline)
    j["baseline"] = {{"centre", num(r.baseline->centre)},
                     {"spread", num(r.baseline->spread)},
                     {"n", r.baseline->n},
                     {"values", r.baseline_values}};
  else
    j["baseline"] = nullptr;
  j["values"] = r.values;
  j["value"] = r.values.empty() ? ordered_json(nullptr) : num(median(r.values));
  if (r.judgement) {
    const Judgement& x = *r.judgement;
    j["outcome"] = std::string(to_string(x.outcome));
    j["change"] = num(x.change);
    j["worse_by"] = num(x.worse_by);
    j["band_low"] = num(x.band_low);
    j["band_high"] = num(x.band_high);
    j["limit"] = num(x.limit);
    j["basis"] = std::string(to_string(x.basis));
    j["scale"] = std::string(to_string(x.scale));
    j["z"] = num(x.z);
    j["noise"] = num(x.noise);
    j["new_runs"] = x.new_runs;
    j["detectable"] = num(x.detectable);
    j["insensitive"] = x.insensitive;
    j["fallback"] = x.fallback;
    j["thresholds"] = thresholds_json(r.thresholds);
  }
  if (!r.detail.empty()) j["detail"] = r.detail;
  return j;
}

ordered_json status_or_null(const std::optional<reports::Status>& s) {
  return s ? ordered_json(std::string(reports::to_string(*s))) : ordered_json(nullptr);
}

}  // namespace

std::string comparison_json(const Comparison& c, const Baseline& b,
                            const std::string& baseline_source, const Rules& rules) {
  ordered_json j = ordered_json::object();
  j["baseline"] = {
      {"source", baseline_source}, {"id", b.id}, {"created", b.created}, {"runs", b.runs.size()}};
  j["rules"] = {{"source", rules.source}, {"defaults", thresholds_json(rules.defaults)}};
  const Tally t = tally(c);
  j["tally"] = {{"judged", t.judged},
                {"regressed", t.regressed},
                {"improved", t.improved},
                {"missing", t.missing},
                {"unjudged", t.unjudged},
                {"mismatched", t.mismatched},
                {"new", t.new_figures},
                {"no_baseline_value", t.no_baseline_value},
                {"informational", t.informational},
                {"ignored", t.ignored},
                {"checks", t.checks},
                {"checks_regressed", t.checks_regressed},
                {"checks_still_failing", t.checks_still_failing},
                {"checks_missing", t.checks_missing},
                {"checks_ignored", t.checks_ignored},
                {"hosts", t.hosts},
                {"hosts_missing", t.hosts_missing},
                {"drift_significant", t.significant},
                {"drift_review", t.review},
                {"drift_not_significant", t.not_significant}};
  ordered_json metrics = ordered_json::array();
  for (const auto& m : c.metrics) metrics.push_back(metric_json(m));
  j["metrics"] = std::move(metrics);
  ordered_json checks = ordered_json::array();
  for (const auto& k : c.checks)
    checks.push_back({{"host", k.host},
                      {"code", k.code},
                      {"entity", k.entity},
                      {"before", status_or_null(k.before)},
                      {"now", status_or_null(k.now)},
                      {"change", std::string(to_string(k.change))},
                      {"rule", k.rule}});
  j["checks"] = std::move(checks);
  ordered_json drift = ordered_json::array();
  for (const auto& d : c.drift)
    drift.push_back({{"host", d.host},
                     {"entity", d.drift.diff.entity},
                     {"field", drift_field(d.drift.diff)},
                     {"baseline", d.drift.diff.a},
                     {"now", d.drift.diff.b},
                     {"impact", std::string(to_string(d.drift.impact))},
                     {"why", d.drift.why},
                     {"rule", d.drift.origin}});
  j["drift"] = std::move(drift);
  ordered_json hosts = ordered_json::array();
  for (const auto& h : c.hosts)
    hosts.push_back({{"host", h.host},
                     {"state", h.state == HostDrift::kCompared  ? "compared"
                               : h.state == HostDrift::kMissing ? "missing"
                                                                : "no-baseline"},
                     {"significant", h.significant},
                     {"review", h.review},
                     {"not_significant", h.none},
                     {"not_significant_fields", h.none_fields}});
  j["hosts"] = std::move(hosts);
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace hn::gate
