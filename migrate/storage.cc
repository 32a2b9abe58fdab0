// Concern 3, storage access: every data, checkpoint and load path of the job
// against the profile's shared mounts (and the nodes' real mount tables when
// snapshots are given), the checkpoint size against the mount's free space,
// and the checkpoint time from a measured write throughput.
#include <cmath>
#include <cstdio>

#include "compat/units.h"
#include "migrate/concerns.h"
#include "migrate/placement.h"
#include "reports/catalog.h"

namespace hn::migrate {

using reports::Status;

namespace {

std::string num(double v, const char* f = "%.1f") {
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string duration(double s) {
  if (s < 120) return num(s, "%.0f") + " s";
  if (s < 7200) return num(s / 60, "%.1f") + " min";
  return num(s / 3600, "%.1f") + " h";
}

// Where to move a path. A load path that is also the checkpoint path gets the
// checkpoint's target, so a job still resumes from what it saved.
std::string suggestion(const Job& job, const JobPath& p) {
  if (job.profile.storage.mounts.empty()) return "a shared mount";
  std::string role = p.role;
  if (role == "load")
    for (const JobPath* c : job.paths_of("checkpoint"))
      if (c->path.value == p.path.value) role = "checkpoint";
  return job.profile.storage.mounts.front().path + "/" + job.name + "/" + role;
}

}  // namespace

void check_path(Concern& c, const Job& job, const JobPath& p) {
  PathPlacement pl = place_path(p.path.value, p.path.dynamic, job.profile, job.evidence);
  reports::Params params{
      {"role", p.role}, {"path", p.path.value}, {"where", p.path.where}, {"seen", pl.seen}};
  if (pl.kind == PathPlacement::kUnresolved) {
    params["why"] = pl.why;
    c.add(reports::make_finding("MIG-STOR-PATH-UNRESOLVED", Status::kWarn, p.path.value, params),
          false, p.path.where);
    return;
  }
  if (pl.kind == PathPlacement::kShared) {
    params["mount"] = pl.mount->path;
    c.add(reports::make_finding("MIG-STOR-PATH", Status::kPass, p.path.value, params), false,
          p.path.where);
    return;
  }
  params["kind"] = pl.what;
  params["cluster"] = cluster_name(job);
  params["mounts"] = mount_list(job.profile);
  params["suggest"] = suggestion(job, p);
  c.add(reports::make_finding("MIG-STOR-PATH", Status::kFail, p.path.value, params), false,
        p.path.where);
}

namespace {

// The shared mount that holds the checkpoint directory, if it is on one.
const formats::MountSpec* checkpoint_mount(const Job& job) {
  auto ckpt = job.paths_of("checkpoint");
  if (ckpt.empty()) return nullptr;
  PathPlacement pl =
      place_path(ckpt.front()->path.value, ckpt.front()->path.dynamic, job.profile, job.evidence);
  return pl.kind == PathPlacement::kShared ? pl.mount : nullptr;
}

void check_checkpoint(Concern& c, const Job& job) {
  const std::string entity = "checkpoint";
  auto skip = [&](const char* code, const std::string& reason) {
    c.add(reports::make_finding(code, Status::kSkip, entity, {{"reason", reason}}));
  };
  if (job.paths_of("checkpoint").empty()) {
    skip("MIG-STOR-CKPT-SPACE",
         "no checkpoint directory was found (none of --save, --checkpoint_dir, --output_dir, "
         "--save-dir, torchtitan's --checkpoint.enable, nor [storage] checkpoint)");
    return;
  }
  const formats::MountSpec* mount = checkpoint_mount(job);
  if (!mount) {
    skip("MIG-STOR-CKPT-SPACE", "the checkpoint path is not on a shared mount of the profile");
    return;
  }
  if (!job.checkpoint_bytes) {
    skip("MIG-STOR-CKPT-SPACE",
         "the checkpoint size is not known: give [storage] checkpoint_size or --checkpoint-size "
         "(or the model's shape: --num-layers and --hidden-size)");
    skip("MIG-STOR-CKPT-TIME", "the checkpoint size is not known");
    return;
  }
  const double gib = static_cast<double>(*job.checkpoint_bytes) / (1ull << 30);
  std::string size = compat::format_size(*job.checkpoint_bytes);
  if (job.checkpoint_size && job.checkpoint_size->origin == "derived")
    size += " (" + job.checkpoint_size->where + ")";
  if (auto free = job.evidence.free_gib(mount->path)) {
    reports::Params p{{"size", size},
                      {"mount", mount->path},
                      {"free", num(free->value) + " GiB"},
                      {"from", "measured: " + free->from}};
    Status st = gib <= free->value ? Status::kPass : Status::kFail;
    c.add(reports::make_finding("MIG-STOR-CKPT-SPACE", st, entity, p), true);
  } else if (mount->min_free_gib && gib <= *mount->min_free_gib) {
    reports::Params p{{"size", size},
                      {"mount", mount->path},
                      {"free", "at least " + num(*mount->min_free_gib) + " GiB"},
                      {"from", "the profile's min_free_gib, which `node` enforces on every node"}};
    c.add(reports::make_finding("MIG-STOR-CKPT-SPACE", Status::kPass, entity, p));
  } else {
    skip("MIG-STOR-CKPT-SPACE",
         "the free space of " + mount->path +
             " was not measured (give a certificate or a `node --json` report)" +
             (mount->min_free_gib
                  ? "; the profile only guarantees " + num(*mount->min_free_gib) + " GiB"
                  : ""));
  }
  if (auto mbps = job.evidence.write_mbps(mount->path); mbps && mbps->value > 0) {
    double s = static_cast<double>(*job.checkpoint_bytes) / (mbps->value * 1e6);
    reports::Finding f = reports::make_finding("MIG-STOR-CKPT-TIME", Status::kPass, entity,
                                               {{"size", size},
                                                {"mount", mount->path},
                                                {"time", duration(s)},
                                                {"mbps", num(mbps->value)},
                                                {"from", mbps->from}});
    f.metrics["save"] = {s, "s"};
    c.add(std::move(f));
  } else {
    skip("MIG-STOR-CKPT-TIME", "no write throughput was measured on " + mount->path +
                                   " (give a certificate, or a `node --storage-jitter --json` "
                                   "report of a node)");
  }
}

}  // namespace

Concern check_storage(const Job& job) {
  Concern c("storage", "Storage access");
  if (job.profile.storage.mounts.empty()) {
    c.add(reports::make_finding("MIG-STOR-NO-MOUNTS", Status::kFail, "storage.mounts",
                                {{"profile", job.profile_file.value}, {"mounts", "none"}}));
    c.set_summary("the profile declares no shared mounts");
    return c;
  }
  int shared = 0, total = 0;
  for (const auto& p : job.paths) {
    if (p.role != "data" && p.role != "checkpoint" && p.role != "load") continue;
    ++total;
    check_path(c, job, p);
    shared += c.items().back().finding.code == "MIG-STOR-PATH" &&
              c.items().back().finding.status == Status::kPass;
  }
  if (total == 0) {
    std::string sources = job.script ? job.script->value : "the job's inputs";
    c.add(reports::make_finding("MIG-STOR-NO-PATHS", Status::kWarn, "paths",
                                {{"role", "data, checkpoint or load"},
                                 {"sources", sources + " and the manifest"},
                                 {"what", "storage access"},
                                 {"key", "[storage] data, checkpoint, load"},
                                 {"flags", "--data-path, --save, --load"}}));
  }
  check_checkpoint(c, job);
  std::string summary = total == 0 ? "no path of the job is known"
                                   : std::to_string(shared) + " of " + std::to_string(total) +
                                         " path(s) on shared storage";
  for (const auto& i : c.items())
    if (i.finding.code == "MIG-STOR-CKPT-SPACE" && i.finding.status == Status::kFail)
      summary += "; the checkpoint does not fit";
  c.set_summary(summary);
  return c;
}

}  // namespace hn::migrate
