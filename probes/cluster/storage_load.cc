#include "probes/cluster/storage_load.h"

#include <cstdio>

#include "compat/units.h"
#include "reports/catalog.h"

namespace hn::probes::cluster {

using reports::Finding;
using reports::make_finding;
using reports::Status;
using stack::physical::LatencyHistogram;

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

double ms(const LatencyHistogram& h, double p) {
  return static_cast<double>(h.percentile(p)) / 1e6;
}

reports::Measurement figure(const std::string& name, std::map<std::string, std::string> labels,
                            double value, const std::string& unit, reports::Better better,
                            const std::string& phase) {
  reports::Measurement m;
  m.name = name;
  m.labels = std::move(labels);
  m.value = value;
  m.unit = unit;
  m.better = better;
  m.phase = phase;
  return m;
}

void percentiles(const LatencyHistogram& h, const std::string& path, const std::string& workload,
                 const std::string& condition, const std::string& host, const std::string& phase,
                 std::vector<reports::Measurement>& out) {
  static const std::pair<const char*, double> kPoints[] = {
      {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}};
  for (const auto& [name, p] : kPoints)
    out.push_back(
        figure(std::string("storage.") + name,
               {{"mount", path}, {"workload", workload}, {"condition", condition}, {"host", host}},
               ms(h, p), "ms", reports::Better::kLower, phase));
}

LatencyHistogram merged(const std::map<std::string, LatencyHistogram>& hosts) {
  LatencyHistogram all;
  for (const auto& [h, hist] : hosts) all.merge(hist);
  return all;
}

// Judges a ratio: `upper` limits are maxima (p99), else minima (busbw).
Status judge(double ratio, const std::optional<double>& warn, const std::optional<double>& fail,
             bool upper, reports::Params& p) {
  auto beyond = [&](double limit) { return upper ? ratio > limit : ratio < limit; };
  if (fail && beyond(*fail)) {
    p["level"] = "fail";
    p["limit"] = num(*fail);
    return Status::kFail;
  }
  if (warn && beyond(*warn)) {
    p["level"] = "warn";
    p["limit"] = num(*warn);
    return Status::kWarn;
  }
  p["level"] = "none";
  p["limit"] = "-";
  return Status::kPass;
}

std::string limit_text(const std::optional<double>& warn, const std::optional<double>& fail,
                       const char* key) {
  if (!warn && !fail)
    return std::string("no limit: the profile sets no storage.interference ") + key;
  std::string s;
  if (warn) s = "warn at " + num(*warn) + "x";
  if (fail) s += (s.empty() ? "" : ", ") + std::string("fail at ") + num(*fail) + "x";
  return s;
}

}  // namespace

bool take_histogram(Finding& f, const std::string& condition, StorageRuns& runs) {
  if (f.code != "STOR-JITTER-LATENCY") return false;
  auto it = f.evidence.find("histogram");
  if (it == f.evidence.end()) return false;
  LatencyHistogram h = LatencyHistogram::decode(it->second);
  f.evidence.erase(it);
  runs.hist[{f.evidence["path"], f.evidence["workload"]}][condition][f.host] = std::move(h);
  return true;
}

StorageResult aggregate_storage(const StorageRuns& runs, const std::string& phase) {
  StorageResult out;
  for (const auto& [key, conds] : runs.hist) {
    const auto& [path, workload] = key;
    for (const auto& [cond, hosts] : conds) {
      const LatencyHistogram all = merged(hosts);
      percentiles(all, path, workload, cond, "all", phase, out.metrics);
      std::string worst;
      double worst_p99 = -1;
      for (const auto& [host, h] : hosts) {
        out.metrics.push_back(
            figure("storage.p99",
                   {{"mount", path}, {"workload", workload}, {"condition", cond}, {"host", host}},
                   ms(h, 99), "ms", reports::Better::kLower, phase));
        if (ms(h, 99) > worst_p99) worst_p99 = ms(h, 99), worst = host;
      }
      if (cond != "alone" || all.count() == 0) continue;
      Finding f = make_finding("STOR-AGGREGATE", Status::kPass, path + " " + workload,
                               {{"path", path},
                                {"workload", workload},
                                {"hosts", std::to_string(hosts.size())},
                                {"p50_ms", num(ms(all, 50))},
                                {"p99_ms", num(ms(all, 99))},
                                {"p999_ms", num(ms(all, 99.9))},
                                {"samples", std::to_string(all.count())},
                                {"worst_host", worst},
                                {"worst_p99_ms", num(worst_p99)}});
      f.metrics["p50"] = {ms(all, 50), "ms"};
      f.metrics["p90"] = {ms(all, 90), "ms"};
      f.metrics["p99"] = {ms(all, 99), "ms"};
      f.metrics["p999"] = {ms(all, 99.9), "ms"};
      out.findings.push_back(std::move(f));
    }
  }
  return out;
}

StorageResult compare_under_load(const StorageRuns& runs, const std::string& plane,
                                 const formats::InterferenceLimits& warn,
                                 const formats::InterferenceLimits& fail,
                                 const std::string& phase) {
  StorageResult out;
  for (const auto& [key, conds] : runs.hist) {
    const auto& [path, workload] = key;
    auto a = conds.find("alone"), u = conds.find("under_load");
    if (a == conds.end() || u == conds.end()) {
      out.findings.push_back(make_finding(
          "STOR-UNDER-LOAD", Status::kSkip, path + " " + workload,
          {{"reason", std::string("no latency samples ") +
                          (a == conds.end() ? "alone" : "under load") + " to compare"}}));
      continue;
    }
    const double alone = ms(merged(a->second), 99), load = ms(merged(u->second), 99);
    const double ratio = alone > 0 ? load / alone : 0;
    reports::Params p{{"path", path},
                      {"workload", workload},
                      {"plane", plane},
                      {"load_ms", num(load)},
                      {"alone_ms", num(alone)},
                      {"ratio", num(ratio)},
                      {"limit_text", limit_text(warn.p99_ratio, fail.p99_ratio, "p99_ratio")}};
    Status st = judge(ratio, warn.p99_ratio, fail.p99_ratio, true, p);
    Finding f = make_finding("STOR-UNDER-LOAD", st, path + " " + workload, p);
    f.metrics["p99_alone"] = {alone, "ms"};
    f.metrics["p99_under_load"] = {load, "ms"};
    f.metrics["ratio"] = {ratio, "ratio"};
    out.findings.push_back(std::move(f));
    out.metrics.push_back(figure("storage.p99_ratio",
                                 {{"mount", path}, {"workload", workload}, {"plane", plane}}, ratio,
                                 "ratio", reports::Better::kLower, phase));
  }
  return out;
}

StorageResult compare_busbw(const std::string& plane, const std::string& op, std::size_t bytes,
                            double alone, double under, const formats::InterferenceLimits& warn,
                            const formats::InterferenceLimits& fail, const std::string& phase) {
  StorageResult out;
  const double ratio = alone > 0 ? under / alone : 0;
  reports::Params p{{"plane", plane},
                    {"op", op},
                    {"size", compat::format_size(bytes)},
                    {"load", num(under)},
                    {"alone", num(alone)},
                    {"ratio", num(ratio)},
                    {"limit_text", limit_text(warn.busbw_ratio, fail.busbw_ratio, "busbw_ratio")}};
  Status st = judge(ratio, warn.busbw_ratio, fail.busbw_ratio, false, p);
  Finding f = make_finding("COMM-BUSBW-UNDER-LOAD", st, op + " plane " + plane, p);
  f.metrics["busbw_alone"] = {alone, "GB/s"};
  f.metrics["busbw_under_load"] = {under, "GB/s"};
  out.findings.push_back(std::move(f));
  out.metrics.push_back(figure("collective.busbw",
                               {{"plane", plane},
                                {"op", op},
                                {"bytes", std::to_string(bytes)},
                                {"condition", "under_storage_load"}},
                               under, "GB/s", reports::Better::kHigher, phase));
  out.metrics.push_back(figure("collective.busbw_ratio", {{"plane", plane}, {"op", op}}, ratio,
                               "ratio", reports::Better::kHigher, phase));
  return out;
}

}  // namespace hn::probes::cluster
