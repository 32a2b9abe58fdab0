#include "probes/storage/mount_check.h"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "compat/join.h"
#include "probes/storage/storage_findings.h"
#include "reports/catalog.h"
#include "stack/l7_physical/fs_ops.h"

namespace hn::probes::storage {

namespace physical = stack::physical;
using reports::make_finding;
using reports::Params;
using reports::Status;

namespace {

constexpr std::size_t kRoundTripBytes = 4096;

bool glob_match(const std::string& pattern, const std::string& text) {
  return pattern == text || fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

std::string strip_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

bool requires_read_only(const formats::MountSpec& spec) {
  return std::find(spec.require_options.begin(), spec.require_options.end(), "ro") !=
         spec.require_options.end();
}

Params mount_params(const formats::MountSpec& spec, const physical::MountEntry& m) {
  return {{"path", spec.path},
          {"mount_point", m.mount_point},
          {"fstype", m.fstype},
          {"source", m.source.empty() ? "(none)" : m.source},
          {"root", m.root}};
}

void judge_options(const formats::MountSpec& spec, const physical::MountEntry& m,
                   drivers::WorkerChannel& out) {
  if (spec.require_options.empty() && spec.forbid_options.empty()) return;
  const auto opts = physical::effective_options(m);
  const bool ro = physical::is_read_only(m);
  auto present = [&](const std::string& pattern) {
    // "rw" on the mount with "ro" on the super block is still read-only.
    if (pattern == "rw") return !ro;
    if (pattern == "ro") return ro;
    return std::any_of(opts.begin(), opts.end(),
                       [&](const std::string& o) { return glob_match(pattern, o); });
  };
  std::vector<std::string> missing, forbidden;
  for (const auto& r : spec.require_options)
    if (!present(r)) missing.push_back(r);
  for (const auto& f : spec.forbid_options)
    if (present(f)) forbidden.push_back(f);
  Params p = mount_params(spec, m);
  p["required"] = compat::join(spec.require_options, ",", "none");
  p["forbidden"] = compat::join(spec.forbid_options, ",", "none");
  p["missing"] = compat::join(missing, ",", "none");
  p["present"] = compat::join(forbidden, ",", "none");
  p["options"] = compat::join(m.mount_options, ",", "none") +
                 " (super: " + compat::join(m.super_options, ",", "none") + ")";
  bool ok = missing.empty() && forbidden.empty();
  out.emit(make_finding("STOR-MOUNT-OPTIONS", ok ? Status::kPass : Status::kFail, spec.path, p));
}

void check_capacity(const formats::MountSpec& spec, const std::string& dir,
                    drivers::WorkerChannel& out) {
  if (!spec.min_free_gib && !spec.min_free_inodes) return;
  physical::FsCapacity c = physical::fs_capacity(dir, [&](std::string_view s) { out.step(s); });
  if (spec.min_free_gib) {
    double free_gib = static_cast<double>(c.free_bytes) / (1ull << 30);
    Params p{{"path", spec.path},
             {"free_gib", fmt_value(free_gib)},
             {"total_gib", fmt_value(static_cast<double>(c.total_bytes) / (1ull << 30))},
             {"min_gib", fmt_value(*spec.min_free_gib)}};
    auto f =
        make_finding("STOR-MOUNT-FREE-SPACE",
                     free_gib >= *spec.min_free_gib ? Status::kPass : Status::kFail, spec.path, p);
    f.metrics["free"] = {free_gib, "GiB"};
    out.emit(f);
  }
  if (spec.min_free_inodes) {
    Params p{{"path", spec.path},
             {"free_inodes", std::to_string(c.free_inodes)},
             {"total_inodes", std::to_string(c.total_inodes)},
             {"min_inodes", std::to_string(*spec.min_free_inodes)}};
    if (c.total_inodes == 0) {
      p["reason"] = "the file system at " + spec.path + " reports no inode count (no inode limit)";
      out.emit(make_finding("STOR-MOUNT-FREE-INODES", Status::kSkip, spec.path, p));
    } else {
      auto f = make_finding("STOR-MOUNT-FREE-INODES",
                            c.free_inodes >= *spec.min_free_inodes ? Status::kPass : Status::kFail,
                            spec.path, p);
      f.metrics["free_inodes"] = {static_cast<double>(c.free_inodes), "inodes"};
      out.emit(f);
    }
  }
}

void round_trip(const formats::MountSpec& spec, const physical::MountEntry& m,
                const std::string& probe_dir, const std::string& host, const std::string& scratch,
                drivers::WorkerChannel& out) {
  auto step = [&](std::string_view s) { out.step(s); };
  std::vector<std::string> removed;
  try {
    removed = physical::remove_stale_scratch(probe_dir, host, step);
  } catch (const physical::IoError&) {
    // Best effort: the round trip below reports a real problem by name.
  }
  Params p{{"path", spec.path},
           {"probe_dir", probe_dir},
           {"flag", physical::is_read_only(m) ? "ro" : "rw"}};
  if (!removed.empty()) p["removed_leftovers"] = compat::join(removed, ",", "none");
  try {
    auto rt = physical::rw_round_trip(probe_dir + "/" + scratch, kRoundTripBytes, step);
    p["bytes"] = std::to_string(rt.bytes);
    p["ms"] = fmt_value(rt.seconds * 1e3);
    auto f = make_finding("STOR-MOUNT-RW", Status::kPass, spec.path, p);
    f.metrics["round_trip"] = {rt.seconds * 1e3, "ms"};
    out.emit(f);
  } catch (const physical::IoError& e) {
    if (e.error() == ESTALE || e.error() == EIO) {
      out.emit(io_error_finding(e, spec.path, "read-write round trip: "));
      return;
    }
    p["op"] = e.op() + " " + e.path();
    p["error"] = physical::errno_name(e.error()) + " (" + std::strerror(e.error()) + ")";
    p["errno_name"] = physical::errno_name(e.error());
    out.emit(make_finding("STOR-MOUNT-RW", Status::kFail, spec.path, p));
  }
}

}  // namespace

const physical::MountEntry* judge_mount(const formats::MountSpec& spec, const std::string& resolved,
                                        const std::vector<physical::MountEntry>& mounts,
                                        drivers::WorkerChannel& out) {
  const physical::MountEntry* m = physical::covering_mount(mounts, resolved);
  if (!m) {
    out.emit(make_finding(
        "STOR-PATH-MISSING", Status::kFail, spec.path,
        {{"path", spec.path}, {"error", "no mount in the mount table covers " + resolved}}));
    return nullptr;
  }
  Params base = mount_params(spec, *m);
  base["resolved"] = resolved;
  bool present = !spec.mountpoint || m->mount_point == resolved;
  out.emit(
      make_finding("STOR-MOUNT-PRESENT", present ? Status::kPass : Status::kFail, spec.path, base));
  if (!present) return nullptr;
  if (!spec.fstypes.empty()) {
    bool ok = std::any_of(spec.fstypes.begin(), spec.fstypes.end(),
                          [&](const std::string& g) { return glob_match(g, m->fstype); });
    Params p = mount_params(spec, *m);
    p["accepted"] = compat::join(spec.fstypes, ",", "none");
    out.emit(make_finding("STOR-MOUNT-FSTYPE", ok ? Status::kPass : Status::kFail, spec.path, p));
  }
  judge_options(spec, *m, out);
  if (!spec.source.empty()) {
    bool ok = glob_match(strip_slash(spec.source), strip_slash(m->source));
    Params p = mount_params(spec, *m);
    p["expected"] = spec.source;
    out.emit(make_finding("STOR-MOUNT-SOURCE", ok ? Status::kPass : Status::kFail, spec.path, p));
  }
  return m;
}

void check_mount_live(const formats::MountSpec& spec, const physical::StorageSource& source,
                      const std::string& host, const std::string& scratch,
                      drivers::WorkerChannel& out) {
  auto step = [&](std::string_view s) { out.step(s); };
  try {
    std::string resolved = physical::resolve_path(spec.path, step);
    const auto mounts = source.mounts();
    const physical::MountEntry* m = judge_mount(spec, resolved, mounts, out);
    if (!m) return;
    const ProbeDir pd = resolve_probe_dir(spec, resolved, mounts, step);
    if (pd.error) {
      out.emit(make_finding(
          "STOR-MOUNT-RW", Status::kFail, spec.path,
          {{"path", spec.path},
           {"probe_dir", spec.probe_dir},
           {"flag", physical::is_read_only(*m) ? "ro" : "rw"},
           {"op", "realpath " + spec.probe_dir},
           {"errno_name", physical::errno_name(pd.error)},
           {"error", physical::errno_name(pd.error) + " (" + std::strerror(pd.error) + ")"}}));
      return;
    }
    const std::string& probe_dir = pd.path;
    if (pd.mount != m) {
      out.emit(make_finding("STOR-PROBE-DIR", Status::kFail, spec.path,
                            {{"path", spec.path},
                             {"probe_dir", probe_dir},
                             {"mount_point", m->mount_point},
                             {"other_mount", pd.mount ? pd.mount->mount_point : "(none)"},
                             {"other_fstype", pd.mount ? pd.mount->fstype : "(none)"}}));
      return;
    }
    check_capacity(spec, probe_dir, out);
    if (!requires_read_only(spec)) round_trip(spec, *m, probe_dir, host, scratch, out);
  } catch (const physical::IoError& e) {
    if (e.op() == "realpath" && (e.error() == ENOENT || e.error() == ENOTDIR)) {
      out.emit(make_finding("STOR-PATH-MISSING", Status::kFail, spec.path,
                            {{"path", spec.path},
                             {"error", e.path() + ": " + physical::errno_name(e.error()) + " (" +
                                           std::strerror(e.error()) + ")"}}));
      return;
    }
    out.emit(io_error_finding(e, spec.path));
  }
}

std::vector<reports::Finding> check_mount_snapshot(
    const formats::MountSpec& spec, const std::vector<physical::MountEntry>& mounts) {
  CollectingChannel out;
  const physical::MountEntry* m =
      judge_mount(spec, physical::normalize_path(spec.path), mounts, out);
  if (!m) return out.findings;
  const std::string reason = "needs the live mount (replaying a snapshot)";
  if (spec.min_free_gib)
    out.emit(make_finding("STOR-MOUNT-FREE-SPACE", Status::kSkip, spec.path, {{"reason", reason}}));
  if (spec.min_free_inodes)
    out.emit(
        make_finding("STOR-MOUNT-FREE-INODES", Status::kSkip, spec.path, {{"reason", reason}}));
  if (!requires_read_only(spec))
    out.emit(make_finding("STOR-MOUNT-RW", Status::kSkip, spec.path, {{"reason", reason}}));
  return out.findings;
}

}  // namespace hn::probes::storage
