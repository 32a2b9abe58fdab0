// The storage section of the cluster profile: mounts and the jitter
// workload with its warn/fail limits.
#include "formats/profile_storage.h"

#include <set>

#include "compat/units.h"

namespace hn::formats {

using compat::YamlMap;

namespace {

using compat::require_yaml_sequence;
using compat::yaml_index;

std::string number_text(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// A warn limit must be reached before its fail limit: for latencies and the
// tail ratio (higher is worse) warn <= fail; for throughputs (lower is
// worse) warn >= fail. Otherwise the WARN band is empty and a value jumps
// from PASS straight to FAIL. Defaults count, so warn.p99_ms: 200 alone is
// refused against the default fail.p99_ms 100.
void check_warn_before_fail(const JitterSpec& j, YamlMap& m, const YAML::Node& warn,
                            const YAML::Node& fail) {
  struct Limit {
    const char* key;
    std::optional<double> LatencyLimits::*member;
    bool higher_is_worse;
  };
  static const Limit kLimits[] = {
      {"p50_ms", &LatencyLimits::p50_ms, true},
      {"p90_ms", &LatencyLimits::p90_ms, true},
      {"p99_ms", &LatencyLimits::p99_ms, true},
      {"p999_ms", &LatencyLimits::p999_ms, true},
      {"max_ms", &LatencyLimits::max_ms, true},
      {"tail_ratio", &LatencyLimits::tail_ratio, true},
      {"write_mbps", &LatencyLimits::write_mbps, false},
      {"read_mbps", &LatencyLimits::read_mbps, false},
  };
  for (const auto& l : kLimits) {
    const auto& w = j.warn.*l.member;
    const auto& f = j.fail.*l.member;
    if (!w || !f) continue;
    if (l.higher_is_worse ? *w <= *f : *w >= *f) continue;
    // Point at whichever side the user wrote (warn first).
    bool in_warn = warn.IsMap() && warn[l.key];
    const YAML::Node at =
        in_warn ? warn[l.key] : (fail.IsMap() && fail[l.key] ? fail[l.key] : m.node());
    std::string field = m.field(std::string(in_warn ? "warn." : "fail.") + l.key);
    compat::throw_at(
        at, m.source(), field,
        std::string("warn.") + l.key + " (" + number_text(*w) + ") must be " +
            (l.higher_is_worse ? "at most" : "at least") + " fail." + l.key + " (" +
            number_text(*f) + ")" +
            (l.higher_is_worse ? ": a warning comes before a failure"
                               : ": a minimum throughput warns above the failing one"));
  }
}

LatencyLimits parse_limits(YamlMap m, LatencyLimits base) {
  auto num = [&](const char* key, std::optional<double>& out) {
    if (auto v = m.opt_number(key)) {
      if (*v <= 0) compat::throw_at(m.get(key), m.source(), m.field(key), "must be positive");
      out = *v;
    }
  };
  num("p50_ms", base.p50_ms);
  num("p90_ms", base.p90_ms);
  num("p99_ms", base.p99_ms);
  num("p999_ms", base.p999_ms);
  num("max_ms", base.max_ms);
  num("tail_ratio", base.tail_ratio);
  num("write_mbps", base.write_mbps);
  num("read_mbps", base.read_mbps);
  m.finish();
  return base;
}

std::uint64_t size_field(YamlMap& m, const char* key, std::uint64_t fallback) {
  YAML::Node n = m.get(key);
  if (!n.IsDefined() || n.IsNull()) return fallback;
  std::string text = compat::yaml_string(n, m.source(), m.field(key));
  try {
    std::uint64_t v = compat::parse_size(text);
    if (v == 0) compat::throw_at(n, m.source(), m.field(key), "must be greater than zero");
    return v;
  } catch (const std::invalid_argument& e) {
    compat::throw_at(n, m.source(), m.field(key), e.what());
  }
}

JitterSpec parse_jitter(YamlMap m) {
  JitterSpec j;
  j.block_bytes = size_field(m, "block", j.block_bytes);
  if (auto v = m.opt_number("duration_s")) {
    if (*v <= 0 || *v > 3600)
      compat::throw_at(m.get("duration_s"), m.source(), m.field("duration_s"),
                       "must be in (0, 3600] seconds");
    j.duration_s = *v;
  }
  j.max_bytes = size_field(m, "max_bytes", j.max_bytes);
  if (auto v = m.opt_int("threads", 1, 256)) j.threads = static_cast<int>(*v);
  if (auto v = m.opt_string("sync")) {
    if (*v != "fsync" && *v != "dsync")
      compat::throw_at(m.get("sync"), m.source(), m.field("sync"),
                       "expected fsync or dsync, got '" + *v + "'");
    j.sync = *v;
  }
  if (m.has("workloads")) {
    j.workloads = m.string_list("workloads");
    static const std::set<std::string> kKnown = {"sync_write", "random_read", "metadata",
                                                 "checkpoint"};
    for (size_t i = 0; i < j.workloads.size(); ++i)
      if (!kKnown.count(j.workloads[i]))
        compat::throw_at(m.get("workloads"), m.source(), yaml_index(m.field("workloads"), i),
                         "unknown workload '" + j.workloads[i] +
                             "' (expected sync_write, random_read, metadata, checkpoint)");
  }
  j.checkpoint_bytes = size_field(m, "checkpoint_size", j.checkpoint_bytes);
  if (auto v = m.opt_number("checkpoint_estimate_gib")) {
    if (*v <= 0)
      compat::throw_at(m.get("checkpoint_estimate_gib"), m.source(),
                       m.field("checkpoint_estimate_gib"), "must be positive");
    j.checkpoint_estimate_gib = *v;
  }
  j.read_file_bytes = size_field(m, "read_file_size", j.read_file_bytes);
  if (j.block_bytes > (64ull << 20))
    compat::throw_at(m.get("block"), m.source(), m.field("block"), "must be at most 64MiB");
  if (j.read_file_bytes < j.block_bytes)
    compat::throw_at(m.get("read_file_size"), m.source(), m.field("read_file_size"),
                     "must be at least one block (" + std::to_string(j.block_bytes) + " bytes)");
  YAML::Node w = m.get("warn"), f = m.get("fail");
  if (w.IsDefined()) j.warn = parse_limits(YamlMap(w, m.source(), m.field("warn")), j.warn);
  if (f.IsDefined()) j.fail = parse_limits(YamlMap(f, m.source(), m.field("fail")), j.fail);
  check_warn_before_fail(j, m, w, f);
  m.finish();
  return j;
}

MountSpec parse_mount(const YAML::Node& node, const std::string& src, const std::string& path) {
  YamlMap m(node, src, path);
  MountSpec s;
  s.line = compat::yaml_position(node).first;
  s.path = m.req_string("path");
  if (s.path.empty() || s.path[0] != '/')
    compat::throw_at(m.get("path"), src, m.field("path"), "must be an absolute path");
  s.fstypes = m.string_list("fstype");
  if (YAML::Node o = m.get("options"); o.IsDefined() && !o.IsNull()) {
    YamlMap om(o, src, m.field("options"));
    s.require_options = om.string_list("require");
    s.forbid_options = om.string_list("forbid");
    om.finish();
  }
  s.source = m.opt_string("source").value_or("");
  if (auto v = m.opt_number("min_free_gib")) {
    if (*v < 0)
      compat::throw_at(m.get("min_free_gib"), src, m.field("min_free_gib"), "must not be negative");
    s.min_free_gib = *v;
  }
  if (auto v = m.opt_int("min_free_inodes", 0, INT64_MAX)) s.min_free_inodes = *v;
  s.probe_dir = m.opt_string("probe_dir").value_or(s.path);
  s.jitter = m.opt_bool("jitter").value_or(true);
  s.mountpoint = m.opt_bool("mountpoint").value_or(true);
  if (auto v = m.opt_number("timeout_s")) {
    if (*v <= 0 || *v > 3600)
      compat::throw_at(m.get("timeout_s"), src, m.field("timeout_s"),
                       "must be in (0, 3600] seconds");
    s.timeout_s = *v;
  }
  if (s.probe_dir.empty() || s.probe_dir[0] != '/')
    compat::throw_at(m.get("probe_dir"), src, m.field("probe_dir"), "must be an absolute path");
  m.finish();
  return s;
}

}  // namespace

// storage.interference: {warn: {p99_ratio, busbw_ratio}, fail: {...}}; the
// p99 ratio is a maximum (>= 1), the busbw ratio a minimum in (0, 1]; a warn
// limit must come before its fail limit.
void parse_interference(YamlMap m, StorageSpec& s) {
  auto level = [&](const char* key, InterferenceLimits& out) {
    YAML::Node n = m.get(key);
    if (!n.IsDefined() || n.IsNull()) return;
    YamlMap lm(n, m.source(), m.field(key));
    if (auto v = lm.opt_number("p99_ratio")) {
      if (!(*v >= 1 && *v < 1e6))
        compat::throw_at(lm.get("p99_ratio"), m.source(), lm.field("p99_ratio"),
                         "must be a ratio of at least 1 (p99 under load / alone)");
      out.p99_ratio = v;
    }
    if (auto v = lm.opt_number("busbw_ratio")) {
      if (!(*v > 0 && *v <= 1))
        compat::throw_at(lm.get("busbw_ratio"), m.source(), lm.field("busbw_ratio"),
                         "must be a ratio in (0, 1] (busbw under load / alone)");
      out.busbw_ratio = v;
    }
    lm.finish();
  };
  level("warn", s.interference_warn);
  level("fail", s.interference_fail);
  const auto &w = s.interference_warn, &f = s.interference_fail;
  if (w.p99_ratio && f.p99_ratio && *w.p99_ratio > *f.p99_ratio)
    compat::throw_at(m.get("warn"), m.source(), m.field("warn") + ".p99_ratio",
                     "the warn limit must not be above the fail limit");
  if (w.busbw_ratio && f.busbw_ratio && *w.busbw_ratio < *f.busbw_ratio)
    compat::throw_at(m.get("warn"), m.source(), m.field("warn") + ".busbw_ratio",
                     "the warn limit must not be below the fail limit (it is a minimum)");
  m.finish();
}

StorageSpec parse_storage_spec(YamlMap m) {
  StorageSpec s;
  YAML::Node mounts = m.get("mounts");
  require_yaml_sequence(mounts, m.source(), m.field("mounts"));
  std::set<std::string> seen;
  for (size_t i = 0; mounts.IsSequence() && i < mounts.size(); ++i) {
    s.mounts.push_back(parse_mount(mounts[i], m.source(), yaml_index(m.field("mounts"), i)));
    if (!seen.insert(s.mounts.back().path).second)
      compat::throw_at(mounts[i], m.source(), yaml_index(m.field("mounts"), i),
                       "mount path '" + s.mounts.back().path + "' is listed twice");
  }
  if (YAML::Node j = m.get("jitter"); j.IsDefined() && !j.IsNull()) {
    s.jitter = parse_jitter(YamlMap(j, m.source(), m.field("jitter")));
    s.jitter_declared = true;
  }
  if (YAML::Node j = m.get("interference"); j.IsDefined() && !j.IsNull())
    parse_interference(YamlMap(j, m.source(), m.field("interference")), s);
  m.finish();
  return s;
}

}  // namespace hn::formats
