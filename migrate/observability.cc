// Concern 6, observability: where the job's logs and metrics go on the
// target (the comm library's log variables, log paths on shared storage, a
// metrics exporter), and which `node` and `certify` checks cover the layers
// the job uses.
#include "migrate/concerns.h"
#include "migrate/placement.h"
#include "reports/catalog.h"

namespace hn::migrate {

namespace tr = compat::translate;
using reports::Status;

namespace {

// CANN's log level (ASCEND_GLOBAL_LOG_LEVEL) and destination
// (ASCEND_SLOG_PRINT_TO_STDOUT) as docs/comm-sources.md A5 documents them.
void check_comm_logs(Concern& c, const std::map<std::string, std::string>& env,
                     const std::string& library) {
  reports::Params p{{"library", library}};
  Status st = Status::kPass;
  if (library == "hccl") {
    static const char* kLevels[] = {"DEBUG", "INFO", "WARNING", "ERROR", "NULL"};
    auto level = env.find("ASCEND_GLOBAL_LOG_LEVEL");
    int l = 3;
    if (level != env.end() && level->second.size() == 1 && level->second[0] >= '0' &&
        level->second[0] <= '4')
      l = level->second[0] - '0';
    p["level"] = std::string(kLevels[l]) +
                 (level == env.end() ? " (CANN's default, ASCEND_GLOBAL_LOG_LEVEL unset)"
                                     : " (ASCEND_GLOBAL_LOG_LEVEL=" + level->second + ")");
    auto out = env.find("ASCEND_SLOG_PRINT_TO_STDOUT");
    if (out != env.end() && out->second == "1") {
      p["dest"] = "to the job's standard output (ASCEND_SLOG_PRINT_TO_STDOUT=1)";
    } else {
      st = Status::kWarn;
      p["dest"] = "to ~/ascend/log/run/plog/ on each node";
      p["why"] =
          "each node keeps its own plog directory, so after a failure the logs of a "
          "multi-node job are scattered over the nodes";
      p["todo"] =
          "Set ASCEND_SLOG_PRINT_TO_STDOUT=1 so CANN's logs reach the job's output file "
          "(on shared storage).";
    }
  } else {
    auto level = env.find("NCCL_DEBUG");
    p["level"] = level == env.end() ? "WARN and above (NCCL_DEBUG unset: only errors print)"
                                    : "NCCL_DEBUG=" + level->second;
    auto file = env.find("NCCL_DEBUG_FILE");
    p["dest"] = file == env.end() ? "to the job's standard output"
                                  : "to " + file->second + " (NCCL_DEBUG_FILE)";
  }
  c.add(reports::make_finding("MIG-OBS-COMM-LOG", st, library + " logs", p));
}

void check_metrics(Concern& c, const Job& job) {
  if (job.metrics.empty()) {
    std::string suggest = job.profile.storage.mounts.empty()
                              ? std::string("on a shared mount")
                              : job.profile.storage.mounts.front().path + "/" + job.name + "/tb";
    c.add(reports::make_finding("MIG-OBS-METRICS", Status::kWarn, "metrics",
                                {{"cluster", cluster_name(job)}, {"suggest", suggest}}));
    return;
  }
  for (const auto& m : job.paths_of("metrics")) {
    const std::string& v = m->path.value;
    // A service ("wandb:llama", "https://...") has a scheme before any '/'.
    auto colon = v.find(':');
    if (colon != std::string::npos && colon > 0 && v.find('/') > colon) {
      c.add(reports::make_finding("MIG-OBS-METRICS", Status::kPass, "metrics",
                                  {{"dest", v}, {"where", m->path.where}}));
      continue;
    }
    check_path(c, job, *m);
  }
}

// The checks of the target that cover what this job uses, layer by layer,
// and what the certificate (when given) says about them.
void check_coverage(Concern& c, const Job& job, const tr::Translation& t) {
  struct Layer {
    std::string name, uses, checks;
    std::vector<std::string> phases;  // certify phases that cover it
  };
  std::vector<Layer> layers;
  if (job.model && job.matrix)
    layers.push_back({"L4 operators",
                      "the model's operators on " + job.matrix->backend,
                      "`hnprecheck ops --backend " + job.matrix->backend + "` (this report)",
                      {"model"}});
  std::string param;
  for (const auto& p : job.profile.planes)
    if (p.type == stack::netplane::PlaneType::kParameter && param.empty()) param = p.name;
  layers.push_back({"L3 collective communication",
                    t.to + " collectives",
                    "`hnprecheck certify` (link setup and collectives per plane) and `hnprecheck "
                    "node --env` with the translated environment (its NIC settings per node)",
                    {"links", "collectives"}});
  layers.push_back(
      {"L5 scheduling", "the job's placement", "`hnprecheck certify` (placement)", {"placement"}});
  if (!job.profile.planes.empty())
    layers.push_back({"L6 network planes",
                      param.empty() ? "the profile's planes" : "the parameter plane " + param,
                      "`hnprecheck node` (NET-PLANE-*, routes, rp_filter) on every node and "
                      "`hnprecheck consistency` across nodes",
                      {"hosts", "cross_host"}});
  if (!job.profile.storage.mounts.empty())
    layers.push_back({"L7 shared storage",
                      "the mounts " + mount_list(job.profile),
                      "`hnprecheck node` (STOR-MOUNT-*, and the jitter workload with "
                      "--storage-jitter) on every node",
                      {"storage"}});
  const Certificate* cert = job.evidence.certificate ? &*job.evidence.certificate : nullptr;
  for (const auto& l : layers) {
    reports::Params p{{"layer_name", l.name}, {"uses", l.uses}, {"checks", l.checks}};
    Status st = Status::kPass;
    if (!cert) {
      p["evidence"] = "; no certificate was given, so whether they pass here is not known";
    } else {
      std::string passed, failed;
      for (const auto& ph : cert->phases) {
        if (std::find(l.phases.begin(), l.phases.end(), ph.name) == l.phases.end()) continue;
        std::string s = ph.name + " " + std::string(reports::to_string(ph.status));
        bool bad = ph.status == Status::kFail || ph.status == Status::kError;
        (bad ? failed : passed) += ((bad ? failed : passed).empty() ? "" : ", ") + s;
      }
      if (!failed.empty()) {
        st = Status::kWarn;
        p["evidence"] = "the certificate " + cert->file + " records " + failed;
        p["todo"] =
            "Fix what the certificate's failing phase reports on the cluster, and certify "
            "it again before moving the job.";
      } else {
        p["evidence"] = passed.empty() ? "; the certificate " + cert->file + " has no phase for it"
                                       : "; the certificate " + cert->file + " records " + passed;
      }
    }
    c.add(reports::make_finding("MIG-OBS-CHECKS", st, l.name.substr(0, 2), p));
  }
}

}  // namespace

Concern check_observability(const Job& job, const CommTranslation& ct) {
  Concern c("observability", "Observability");
  const tr::Translation& t = ct.translation;
  std::map<std::string, std::string> env;
  for (const auto& l : t.env) env[l.name] = l.value;
  check_comm_logs(c, env, t.to);

  auto logs = job.paths_of("logs");
  if (logs.empty()) {
    c.add(reports::make_finding(
        "MIG-OBS-NO-LOGS", Status::kWarn, "logs",
        {{"sources", job.script ? job.script->value : std::string("the job's inputs")},
         {"checked", "#SBATCH --output/--error, redirections, tee, [storage] logs"}}));
  }
  for (const auto* p : logs) check_path(c, job, *p);
  check_metrics(c, job);
  check_coverage(c, job, t);

  int problems = 0;
  for (const auto& i : c.items()) problems += is_problem(i.finding);
  c.set_summary(problems == 0 ? "logs and metrics reach shared storage; " + t.to + " logs collected"
                              : std::to_string(problems) + " problem(s) with logs or metrics");
  return c;
}

}  // namespace hn::migrate
