#include "probes/storage/jitter_check.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "compat/units.h"
#include "probes/storage/storage_findings.h"
#include "reports/catalog.h"
#include "stack/l7_physical/fs_ops.h"

namespace hn::probes::storage {

namespace physical = stack::physical;
using reports::Finding;
using reports::make_finding;
using reports::Params;
using reports::Status;

namespace {

std::string limit_text(const std::optional<double>& v) {
  return v ? fmt_value(*v) : "none";
}

// Upper limits: above fail is FAIL, above warn is WARN.
Status judge_upper(double v, const std::optional<double>& warn, const std::optional<double>& fail,
                   Params& p) {
  if (fail && v > *fail) {
    p["level"] = "fail";
    p["limit_ms"] = p["limit"] = fmt_value(*fail);
    return Status::kFail;
  }
  if (warn && v > *warn) {
    p["level"] = "warn";
    p["limit_ms"] = p["limit"] = fmt_value(*warn);
    return Status::kWarn;
  }
  return Status::kPass;
}

// Lower limits (throughput): below fail is FAIL, below warn is WARN.
Status judge_lower(double v, const std::optional<double>& warn, const std::optional<double>& fail,
                   Params& p) {
  if (fail && v < *fail) {
    p["level"] = "fail";
    p["limit_mbps"] = fmt_value(*fail);
    return Status::kFail;
  }
  if (warn && v < *warn) {
    p["level"] = "warn";
    p["limit_mbps"] = fmt_value(*warn);
    return Status::kWarn;
  }
  return Status::kPass;
}

void latency_metrics(const physical::WorkloadResult& r, Finding& f) {
  const auto& h = r.latency;
  f.metrics["samples"] = {static_cast<double>(h.count()), "ops"};
  f.metrics["p50"] = {h.percentile(50) / 1e6, "ms"};
  f.metrics["p90"] = {h.percentile(90) / 1e6, "ms"};
  f.metrics["p99"] = {h.percentile(99) / 1e6, "ms"};
  f.metrics["p999"] = {h.percentile(99.9) / 1e6, "ms"};
  f.metrics["max"] = {h.max() / 1e6, "ms"};
  f.metrics["mean"] = {h.mean() / 1e6, "ms"};
  double p50 = static_cast<double>(h.percentile(50));
  f.metrics["tail_ratio"] = {p50 > 0 ? h.percentile(99.9) / p50 : 0, "ratio"};
}

std::vector<Finding> latency_findings(const std::string& path, const formats::JitterSpec& j,
                                      const physical::WorkloadResult& r) {
  std::vector<Finding> out;
  const std::string name(physical::to_string(r.workload));
  const std::string entity = path + " " + name;
  const auto& h = r.latency;
  Params base{{"path", path},
              {"workload", name},
              {"samples", std::to_string(h.count())},
              {"seconds", fmt_value(r.seconds)}};
  if (h.count() == 0) {
    out.push_back(make_finding("STOR-JITTER-LATENCY", Status::kWarn, entity, base));
    return out;
  }
  double p50 = static_cast<double>(h.percentile(50));
  double tail = p50 > 0 ? h.percentile(99.9) / p50 : 0;
  Params sum = base;
  sum["p50_ms"] = fmt_ms(p50);
  sum["p90_ms"] = fmt_ms(static_cast<double>(h.percentile(90)));
  sum["p99_ms"] = fmt_ms(static_cast<double>(h.percentile(99)));
  sum["p999_ms"] = fmt_ms(static_cast<double>(h.percentile(99.9)));
  sum["max_ms"] = fmt_ms(static_cast<double>(h.max()));
  sum["tail_ratio"] = fmt_value(tail);
  sum["ops"] = std::to_string(r.ops);
  sum["bytes_written"] = std::to_string(r.bytes_written);
  sum["bytes_read"] = std::to_string(r.bytes_read);
  sum["stopped_by"] = r.stopped_by;
  if (r.workload == physical::Workload::kRandomRead)
    sum["read_mode"] = r.direct ? "O_DIRECT" : "page cache dropped, buffered";
  Finding s = make_finding("STOR-JITTER-LATENCY", Status::kPass, entity, sum);
  latency_metrics(r, s);
  if (j.with_histograms) s.evidence["histogram"] = h.encode();
  out.push_back(s);

  struct Stat {
    const char* code;
    double value;  // ms, or the ratio
    std::optional<double> warn, fail;
    bool ratio;
  };
  const Stat stats[] = {
      {"STOR-JITTER-P50", p50 / 1e6, j.warn.p50_ms, j.fail.p50_ms, false},
      {"STOR-JITTER-P90", h.percentile(90) / 1e6, j.warn.p90_ms, j.fail.p90_ms, false},
      {"STOR-JITTER-P99", h.percentile(99) / 1e6, j.warn.p99_ms, j.fail.p99_ms, false},
      {"STOR-JITTER-P999", h.percentile(99.9) / 1e6, j.warn.p999_ms, j.fail.p999_ms, false},
      {"STOR-JITTER-MAX", h.max() / 1e6, j.warn.max_ms, j.fail.max_ms, false},
      {"STOR-JITTER-TAIL", tail, j.warn.tail_ratio, j.fail.tail_ratio, true},
  };
  for (const auto& st : stats) {
    if (!st.warn && !st.fail) continue;
    Params p = base;
    p["value"] = p["value_ms"] = fmt_value(st.value);
    p["warn"] = p["warn_ms"] = limit_text(st.warn);
    p["fail"] = p["fail_ms"] = limit_text(st.fail);
    Status status = judge_upper(st.value, st.warn, st.fail, p);
    Finding f = make_finding(st.code, status, entity, p);
    latency_metrics(r, f);
    out.push_back(f);
  }
  return out;
}

// "1 GiB", "1.5 GiB", "640 MiB".
std::string size_text(std::uint64_t bytes) {
  std::string s = compat::format_size(bytes);
  std::size_t unit = s.find_first_not_of("0123456789.");
  return unit == std::string::npos ? s : s.substr(0, unit) + " " + s.substr(unit);
}

// Why the checkpoint wrote less than checkpoint_size: "max_bytes" (the cap the
// profile sets, shared by the writing workloads), "time" (its time share ran
// out first), or "" when it wrote what was asked for. Alignment to whole
// blocks per thread can leave a few KiB out; that is not worth a word.
std::string checkpoint_shortfall(const physical::WorkloadResult& r) {
  if (r.requested_bytes == 0 || r.bytes_written >= r.requested_bytes) return "";
  if (r.stopped_by == "time") return "time";
  if (r.max_bytes_share < r.requested_bytes) return "max_bytes";
  return "";
}

std::vector<Finding> checkpoint_findings(const std::string& path, const formats::JitterSpec& j,
                                         const physical::WorkloadResult& r) {
  std::vector<Finding> out;
  const std::string entity = path + " checkpoint";
  // A capped or cut-short checkpoint still measures throughput, so it is not
  // a WARN by itself, but the message must not read as if checkpoint_size was
  // written.
  const std::string shortfall = checkpoint_shortfall(r);
  std::string of_requested;
  if (shortfall == "max_bytes")
    of_requested = " of the requested " + size_text(r.requested_bytes) + " (capped by max_bytes)";
  else if (shortfall == "time")
    of_requested =
        " of the requested " + size_text(r.requested_bytes) + " (its time share ran out first)";
  auto add = [&](const char* code, double mbps, double mib, const std::optional<double>& warn,
                 const std::optional<double>& fail, const char* metric) {
    Params p{{"path", path},
             {"mbps", fmt_value(mbps)},
             {"mib", fmt_value(mib)},
             {"mode", r.direct ? "O_DIRECT" : "page cache dropped, buffered"},
             {"warn_mbps", limit_text(warn)},
             {"fail_mbps", limit_text(fail)},
             {"stopped_by", r.stopped_by},
             {"requested_bytes", std::to_string(r.requested_bytes)},
             {"written_bytes", std::to_string(r.bytes_written)},
             {"max_bytes_share", std::to_string(r.max_bytes_share)},
             {"capped_by", shortfall.empty() ? "none" : shortfall},
             {"of_requested", of_requested}};
    Status st = judge_lower(mbps, warn, fail, p);
    Finding f = make_finding(code, st, entity, p);
    f.metrics[metric] = {mbps, "MB/s"};
    f.metrics["bytes"] = {mib, "MiB"};
    out.push_back(f);
  };
  add("STOR-CHECKPOINT-WRITE", r.write_mbps, r.bytes_written / 1048576.0, j.warn.write_mbps,
      j.fail.write_mbps, "write");
  add("STOR-CHECKPOINT-READ", r.read_mbps, r.bytes_read / 1048576.0, j.warn.read_mbps,
      j.fail.read_mbps, "read");
  if (j.checkpoint_estimate_gib) {
    const double bytes = *j.checkpoint_estimate_gib * (1ull << 30);
    if (r.write_mbps <= 0 || r.read_mbps <= 0) {
      out.push_back(make_finding(
          "STOR-CHECKPOINT-ESTIMATE", Status::kSkip, entity,
          {{"reason", "the checkpoint workload moved no data in its time share on " + path}}));
    } else {
      double save = bytes / (r.write_mbps * 1e6), load = bytes / (r.read_mbps * 1e6);
      Params p{{"path", path},
               {"size_gib", fmt_value(*j.checkpoint_estimate_gib)},
               {"save_s", fmt_value(save)},
               {"load_s", fmt_value(load)},
               {"write_mbps", fmt_value(r.write_mbps)},
               {"read_mbps", fmt_value(r.read_mbps)}};
      Finding f = make_finding("STOR-CHECKPOINT-ESTIMATE", Status::kPass, entity, p);
      f.metrics["save"] = {save, "s"};
      f.metrics["load"] = {load, "s"};
      out.push_back(f);
    }
  }
  return out;
}

}  // namespace

physical::WorkloadConfig workload_config(const formats::JitterSpec& j) {
  physical::WorkloadConfig c;
  c.workloads.clear();
  for (const auto& w : j.workloads) c.workloads.push_back(physical::workload_from_string(w));
  c.block_bytes = j.block_bytes;
  c.duration = std::chrono::duration<double>(j.duration_s);
  c.max_bytes = j.max_bytes;
  c.threads = j.threads;
  c.sync = j.sync == "dsync" ? physical::SyncMode::kDsync : physical::SyncMode::kFsync;
  c.checkpoint_bytes = j.checkpoint_bytes;
  c.read_file_bytes = j.read_file_bytes;
  return c;
}

std::vector<Finding> workload_findings(const std::string& path, const formats::JitterSpec& jitter,
                                       const physical::WorkloadResult& result) {
  if (result.workload == physical::Workload::kCheckpoint)
    return checkpoint_findings(path, jitter, result);
  return latency_findings(path, jitter, result);
}

void run_jitter_live(const formats::MountSpec& spec, const formats::JitterSpec& jitter,
                     const physical::StorageSource& source, const std::string& host,
                     const std::string& scratch, drivers::WorkerChannel& out) {
  auto step = [&](std::string_view s) { out.step(s); };
  auto skip = [&](const std::string& reason) {
    out.emit(make_finding("STOR-JITTER-LATENCY", Status::kSkip, spec.path, {{"reason", reason}}));
  };
  try {
    std::string resolved = physical::resolve_path(spec.path, step);
    const auto mounts = source.mounts();
    const physical::MountEntry* m = physical::covering_mount(mounts, resolved);
    if (!m || (spec.mountpoint && m->mount_point != resolved))
      return skip(spec.path +
                  " is not a mount point (see STOR-MOUNT-PRESENT); the file system "
                  "below it is not measured");
    const ProbeDir pd = resolve_probe_dir(spec, resolved, mounts, step);
    if (pd.error)
      return skip("the probe directory " + spec.probe_dir + " cannot be resolved: " +
                  physical::errno_name(pd.error) + " (see STOR-MOUNT-RW)");
    if (pd.mount != m)
      return skip(spec.probe_dir + " is not on the mount at " + m->mount_point +
                  " (see STOR-PROBE-DIR)");
    const std::string& probe_dir = pd.path;
    try {
      physical::remove_stale_scratch(probe_dir, host, step);
    } catch (const physical::IoError&) {
      // Best effort; a real problem shows in the run below.
    }
    const std::string dir = probe_dir + "/" + scratch;
    step("mkdir " + dir);
    if (::mkdir(dir.c_str(), 0700) != 0) throw physical::IoError("mkdir", dir, errno);
    try {
      physical::run_workloads(workload_config(jitter), dir, step,
                              [&](const physical::WorkloadResult& r) {
                                for (const auto& f : workload_findings(spec.path, jitter, r))
                                  out.emit(f);
                              });
    } catch (const physical::IoError& e) {
      out.emit(io_error_finding(e, spec.path, "jitter workload: "));
      try {
        physical::remove_scratch(dir, step);
      } catch (const physical::IoError&) {
        // The supervisor's cleanup and the next run's sweep take over.
      }
      return;
    }
    try {
      physical::remove_scratch(dir, step);
    } catch (const physical::IoError& e) {
      out.emit(
          make_finding("STOR-CLEANUP", Status::kWarn, spec.path,
                       {{"path", spec.path}, {"leftover", dir}, {"error", std::string(e.what())}}));
    }
  } catch (const physical::IoError& e) {
    out.emit(io_error_finding(e, spec.path));
  }
}

}  // namespace hn::probes::storage
