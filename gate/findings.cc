#include "gate/findings.h"

#include <cmath>
#include <cstdio>

#include "reports/catalog.h"

namespace hn::gate {

namespace {

using reports::Finding;
using reports::Params;
using reports::Status;

std::string percent(double change) {
  if (!std::isfinite(change)) return "baseline centre 0";
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", change * 100);
  return b;
}

std::string basis_text(const MetricResult& r) {
  const Judgement& j = *r.judgement;
  const Thresholds& t = r.thresholds;
  switch (j.basis) {
    case Basis::kNoiseBand:
      return "noise band: " + format_value(j.z) + " x the " +
             (j.scale == Scale::kLog ? format_percent(std::expm1(j.noise)) + " spread of one run"
                                     : format_value(j.noise) + " spread of one run") +
             (t.k ? " (k from the rules)" : " (" + format_percent(t.false_alarm) +
                                               " false alarms per call, shared by the judged figures)");
    case Basis::kMinChange:
      return "min change " + format_percent(t.min_change);
    case Basis::kMinAbs:
      return "min abs " + format_value(t.min_abs);
    case Basis::kFallback:
      return "fallback " + format_percent(t.fallback_change) + ": fewer than " +
             std::to_string(t.min_runs) + " baseline runs, noise unknown";
    case Basis::kBaselineRange:
      return "the worst baseline run";
  }
  return "";
}

// "a drop of 12%" / "a rise of 14%": the smallest change caught 9 times in 10.
std::string detectable_text(const MetricResult& r) {
  const Judgement& j = *r.judgement;
  const bool higher = r.measurement.better == reports::Better::kHigher;
  if (!std::isfinite(j.detectable))
    return higher ? std::string("no loss (its baseline is 0)")
                  : "any rise beyond " + format_value(std::fabs(j.limit - j.centre)) + " " +
                        r.measurement.unit;
  return std::string(higher ? "a drop of " : "a rise of ") + format_percent(j.detectable);
}

Params metric_params(const MetricResult& r) {
  Params p{{"identity", r.identity},
           {"name", r.measurement.name},
           {"unit", r.measurement.unit},
           {"rule", r.rule},
           {"n", std::to_string(r.baseline ? r.baseline->n : 0)},
           {"runs", std::to_string(r.values.size())},
           {"centre", r.baseline ? format_value(r.baseline->centre) : "(none)"},
           {"detail", r.detail}};
  if (!r.values.empty()) p["value"] = format_value(median(r.values));
  return p;
}

void add_metric_figures(Finding& f, const MetricResult& r) {
  const std::string& u = r.measurement.unit;
  if (r.baseline) {
    f.metrics["centre"] = {r.baseline->centre, u};
    f.metrics["spread"] = {r.baseline->spread, u};
  }
  if (!r.values.empty()) f.metrics["value"] = {median(r.values), u};
  if (r.judgement) {
    f.metrics["band_low"] = {r.judgement->band_low, u};
    f.metrics["band_high"] = {r.judgement->band_high, u};
    f.metrics["limit"] = {r.judgement->limit, u};
    if (std::isfinite(r.judgement->detectable))
      f.metrics["detectable"] = {r.judgement->detectable, "ratio"};
  }
}

// A figure that could lose `detect` without failing: a check that cannot
// fail, said out loud.
Finding insensitive_finding(const MetricResult& r) {
  Params p = metric_params(r);
  const Judgement& j = *r.judgement;
  p["detectable"] = detectable_text(r);
  p["detect"] = format_percent(r.thresholds.detect);
  p["centre"] = format_value(j.centre);
  p["why"] = j.fallback ? "fewer than " + std::to_string(r.thresholds.min_runs) +
                              " baseline runs: the stated fallback applies"
             : j.basis == Basis::kBaselineRange ? "beyond_range: the worst baseline run sets the limit"
             : j.dips_included
                 ? std::to_string(j.dips) + " of " + p["n"] +
                       " baseline runs dipped, too often for " + std::to_string(j.new_runs) +
                       " new run(s) to tell a dip from a loss"
                 : "its runs vary by " +
                                                      format_percent(j.scale == Scale::kLog
                                                                         ? std::expm1(j.noise)
                                                                         : j.noise / std::fabs(j.centre)) +
                                                      " (one spread) over " + p["n"] +
                                                      " baseline run(s)";
  Finding f = reports::make_finding("GATE-METRIC-INSENSITIVE", Status::kWarn, r.identity, p);
  f.layer = r.layer;
  return f;
}

Finding machine_finding(const MachineResult& m) {
  Params p{{"host", m.host}, {"source", m.source}, {"detail", m.detail}};
  const std::string subject = m.source.empty() ? "baseline " + m.host : m.source + " " + m.host;
  switch (m.state) {
    case MachineState::kSame:
      return reports::make_finding("GATE-MACHINE", Status::kPass, subject, p);
    case MachineState::kDiffers:
      p["how"] = "measured on another machine than the baseline's run(s) of " + m.host + ": " +
                 m.detail;
      return reports::make_finding("GATE-MACHINE", Status::kWarn, subject, p);
    case MachineState::kOtherHost:
      p["how"] = "measured on " + m.host + "; " + m.detail;
      return reports::make_finding("GATE-MACHINE", Status::kWarn, subject, p);
    case MachineState::kMixedBase:
      p["how"] = "the baseline's runs of " + m.host + " come from different machines: " + m.detail;
      return reports::make_finding("GATE-MACHINE", Status::kWarn, subject, p);
    case MachineState::kUnknown:
      p["reason"] = m.detail;
      return reports::make_finding("GATE-MACHINE", Status::kSkip, subject, p);
  }
  return {};
}

Finding metric_finding(const MetricResult& r) {
  Params p = metric_params(r);
  Finding f;
  switch (r.state) {
    case MetricState::kJudged: {
      const Judgement& j = *r.judgement;
      const Sense sense = *sense_of(r.measurement.better);
      p["change"] = percent(j.change);
      p["band_low"] = format_value(j.band_low);
      p["band_high"] = format_value(j.band_high);
      p["edge"] = format_value(j.limit);
      p["sense"] = std::string(to_string(sense));
      p["basis"] = basis_text(r);
      p["scale"] = std::string(to_string(j.scale));
      p["detectable"] = detectable_text(r);
      p["centre"] = format_value(j.centre);
      p["verdict"] =
          j.outcome == Outcome::kImproved ? "improved beyond the band" : "within the band";
      p["outcome"] = std::string(to_string(j.outcome));
      // One run cannot tell a dip of a busy machine from a loss: the stated
      // false-alarm rate holds once two more runs confirm it.
      p["confirm"] = j.new_runs == 1 ? "; one run: confirm it by gating it with 2 more runs" : "";
      f = reports::make_finding("GATE-METRIC",
                                j.outcome == Outcome::kRegressed ? Status::kFail : Status::kPass,
                                r.identity, p);
      break;
    }
    case MetricState::kMissing:
      if (!p["detail"].empty()) p["detail"] = " (" + p["detail"] + ")";
      f = reports::make_finding("GATE-METRIC-MISSING", r.missing_status, r.identity, p);
      break;
    case MetricState::kNew:
      p["reason"] =
          r.identity + " is not in the baseline" +
          (r.values.empty() ? "" : " (now " + p["value"] + " " + r.measurement.unit + ")");
      f = reports::make_finding("GATE-METRIC-NEW", Status::kSkip, r.identity, p);
      break;
    case MetricState::kUnjudged:
      if (!p.count("value")) p["value"] = "(none)";
      f = reports::make_finding("GATE-METRIC-UNJUDGED", Status::kWarn, r.identity, p);
      break;
    case MetricState::kMismatch:
      f = reports::make_finding("GATE-METRIC-MISMATCH", Status::kFail, r.identity, p);
      break;
    case MetricState::kNoBaselineValue:
      p["reason"] = "the baseline has " + r.identity + " only as null (it was never measured)";
      f = reports::make_finding("GATE-METRIC", Status::kSkip, r.identity, p);
      break;
    case MetricState::kInformational:
    case MetricState::kIgnored:
      return {};
  }
  f.layer = r.layer;
  add_metric_figures(f, r);
  return f;
}

std::string status_text(const std::optional<Status>& s) {
  return s ? std::string(reports::to_string(*s)) : "absent";
}

Finding check_finding(const CheckResult& r) {
  const std::string subject = r.host.empty()     ? r.entity
                              : r.entity.empty() ? r.host
                                                 : r.host + " " + r.entity;
  Params p{{"check", r.code},           {"subject", subject},   {"before", status_text(r.before)},
           {"now", status_text(r.now)}, {"message", r.message}, {"rule", r.rule}};
  Finding f;
  switch (r.change) {
    case CheckChange::kStillPassing:
      p["how"] = "passes, as in the baseline";
      f = reports::make_finding("GATE-CHECK", Status::kPass, subject, p);
      break;
    case CheckChange::kFixed:
      p["how"] = "passes now (" + p["before"] + " in the baseline)";
      f = reports::make_finding("GATE-CHECK", Status::kPass, subject, p);
      break;
    case CheckChange::kNewPassing:
      p["how"] = "passes (" + p["before"] + " in the baseline)";
      f = reports::make_finding("GATE-CHECK", Status::kPass, subject, p);
      break;
    case CheckChange::kRegressed:
    case CheckChange::kNewFailing:
      p["held"] = r.change == CheckChange::kRegressed && r.before == Status::kPass ? "passed"
                  : r.change == CheckChange::kRegressed                            ? "only warned"
                                                        : "was not judged";
      f = reports::make_finding("GATE-CHECK-REGRESSED", Status::kFail, subject, p);
      break;
    case CheckChange::kStillFailing:
      f = reports::make_finding("GATE-CHECK-STILL-FAILING", Status::kWarn, subject, p);
      break;
    case CheckChange::kMissing:
      f = reports::make_finding("GATE-CHECK-MISSING", r.missing_status, subject, p);
      break;
    case CheckChange::kNotChecked:
      p["reason"] = r.code + " on " + subject + " was judged neither in the baseline (" +
                    p["before"] + ") nor now (" + p["now"] + ")";
      f = reports::make_finding("GATE-CHECK", Status::kSkip, subject, p);
      break;
    case CheckChange::kIgnored:
      return {};
  }
  f.layer = r.layer;
  return f;
}

reports::Layer drift_layer(const std::string& entity) {
  return entity.rfind("netplane", 0) == 0 ? reports::Layer::kL6 : reports::Layer::kL7;
}

Finding drift_finding(const DriftResult& d) {
  const std::string field = drift_field(d.drift.diff);
  Params p{{"host", d.host},      {"entity", d.drift.diff.entity},
           {"field", field},      {"a", d.drift.diff.a},
           {"b", d.drift.diff.b}, {"impact", std::string(to_string(d.drift.impact))},
           {"why", d.drift.why},  {"origin", d.drift.origin.empty() ? "no rule" : d.drift.origin}};
  Finding f = reports::make_finding(
      "GATE-DRIFT", d.drift.impact == Impact::kSignificant ? Status::kFail : Status::kWarn,
      d.host + " " + d.drift.diff.entity + " " + field, p);
  f.layer = drift_layer(d.drift.diff.entity);
  return f;
}

Finding host_finding(const HostResult& h) {
  Params p{{"host", h.host}};
  switch (h.state) {
    case HostDrift::kCompared: {
      std::string fields;
      for (const auto& name : h.none_fields) fields += (fields.empty() ? "" : ", ") + name;
      p["none"] = std::to_string(h.none);
      p["fields"] = fields.empty() ? "none" : fields;
      const bool clean = h.significant == 0 && h.review == 0;
      if (clean) return reports::make_finding("GATE-DRIFT", Status::kPass, h.host, p);
      return {};  // each difference has its own finding
    }
    case HostDrift::kMissing:
      return reports::make_finding("GATE-DRIFT-MISSING", h.missing_status, h.host, p);
    case HostDrift::kNoBaseline:
      p["reason"] = "the baseline has no snapshot of " + h.host;
      return reports::make_finding("GATE-DRIFT", Status::kSkip, h.host, p);
  }
  return {};
}

}  // namespace

std::string format_value(double v) {
  char buf[64];
  const double a = std::fabs(v);
  if (v == 0 || !std::isfinite(v))
    std::snprintf(buf, sizeof buf, "%g", v);
  else if (a >= 100 || a < 0.01)  // 148, 42402, 2.41e-05
    std::snprintf(buf, sizeof buf, a >= 100 && a < 1e15 ? "%.0f" : "%.3g", v);
  else  // 3 significant digits: 0.0123, 1.23, 40.5
    std::snprintf(buf, sizeof buf, "%.*f", a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : 4, v);
  return buf;
}

std::string format_percent(double share) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g%%", share * 100);
  return buf;
}

std::vector<Finding> gate_findings(const Comparison& c) {
  std::vector<Finding> out;
  auto add = [&](Finding f) {
    if (!f.code.empty()) out.push_back(std::move(f));
  };
  for (const auto& m : c.machines) add(machine_finding(m));
  for (const auto& rule : c.unused_rules) {
    Finding f = reports::make_finding("GATE-RULE-UNUSED", Status::kWarn, rule, {{"rule", rule}});
    f.layer = reports::Layer::kL7;
    add(std::move(f));
  }
  for (const auto& m : c.metrics) {
    add(metric_finding(m));
    if (m.judgement && m.judgement->insensitive) add(insensitive_finding(m));
  }
  for (const auto& k : c.checks) add(check_finding(k));
  for (const auto& h : c.hosts) add(host_finding(h));
  for (const auto& d : c.drift) add(drift_finding(d));
  return out;
}

Tally tally(const Comparison& c) {
  Tally t;
  for (const auto& m : c.metrics) {
    switch (m.state) {
      case MetricState::kJudged:
        ++t.judged;
        if (m.judgement->outcome == Outcome::kRegressed) ++t.regressed;
        if (m.judgement->outcome == Outcome::kImproved) ++t.improved;
        break;
      case MetricState::kMissing:
        ++t.missing;
        break;
      case MetricState::kNew:
        ++t.new_figures;
        break;
      case MetricState::kInformational:
        ++t.informational;
        break;
      case MetricState::kUnjudged:
        ++t.unjudged;
        break;
      case MetricState::kMismatch:
        ++t.mismatched;
        break;
      case MetricState::kNoBaselineValue:
        ++t.no_baseline_value;
        break;
      case MetricState::kIgnored:
        ++t.ignored;
        break;
    }
  }
  for (const auto& k : c.checks) {
    ++t.checks;
    if (k.change == CheckChange::kRegressed || k.change == CheckChange::kNewFailing)
      ++t.checks_regressed;
    if (k.change == CheckChange::kStillFailing) ++t.checks_still_failing;
    if (k.change == CheckChange::kMissing) ++t.checks_missing;
    if (k.change == CheckChange::kIgnored) ++t.checks_ignored;
  }
  for (const auto& h : c.hosts) {
    ++t.hosts;
    if (h.state == HostDrift::kMissing) ++t.hosts_missing;
    t.significant += h.significant;
    t.review += h.review;
    t.not_significant += h.none;
  }
  return t;
}

std::vector<std::string> tally_lines(const Tally& t) {
  auto n = [](int v) { return std::to_string(v); };
  return {
      "figures: " + n(t.judged) + " judged (" + n(t.regressed) + " regressed, " + n(t.improved) +
          " improved), " + n(t.missing) + " missing, " + n(t.unjudged) + " without a direction, " +
          n(t.mismatched) + " not comparable, " + n(t.new_figures) + " new, " +
          n(t.no_baseline_value) + " never measured in the baseline, " + n(t.informational) +
          " informational (shown, not judged), " + n(t.ignored) + " ignored by rules",
      "checks: " + n(t.checks) + " compared (" + n(t.checks_regressed) + " regressed, " +
          n(t.checks_still_failing) + " still failing, " + n(t.checks_missing) + " missing, " +
          n(t.checks_ignored) + " ignored by rules)",
      "snapshots: " + n(t.hosts) + " host(s) (" + n(t.hosts_missing) + " missing), " +
          n(t.significant) + " significant difference(s), " + n(t.review) + " to review, " +
          n(t.not_significant) + " not significant",
  };
}

}  // namespace hn::gate
