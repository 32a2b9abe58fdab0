#include "migrate/plan.h"

#include "compat/translate/env_output.h"
#include "migrate/artifacts.h"
#include "migrate/concerns.h"

namespace hn::migrate {

namespace {

ArtifactNames artifact_names(const Job& job, const std::optional<std::string>& out_dir,
                             const std::string& to) {
  ArtifactNames n;
  if (!out_dir) return n;
  n.env_file = env_artifact_path(*out_dir, job.name, to);
  if (job.script) n.script = script_artifact_path(*out_dir, job.script->value);
  return n;
}

std::vector<reports::MigrationChange> ordered_changes(const std::vector<Concern>& concerns) {
  std::vector<reports::MigrationChange> out;
  for (bool blocking : {true, false})
    for (const auto& c : concerns)
      for (const auto& i : c.items()) {
        if (!is_problem(i.finding) || !i.listed || i.blocking != blocking) continue;
        out.push_back({blocking ? reports::Verdict::kBlocked : reports::Verdict::kNeedsChanges,
                       c.key(), i.finding.code, i.finding.entity, i.finding.remediation, i.where});
      }
  return out;
}

}  // namespace

std::vector<std::string> planned_artifact_paths(const Job& job, const std::string& out_dir) {
  ArtifactNames n = artifact_names(job, out_dir, job.to.value);
  std::vector<std::string> out = {n.env_file};
  if (!n.script.empty()) out.push_back(n.script);
  return out;
}

MigrationRun plan_migration(const Job& job, const PlanOptions& options) {
  MigrationRun run;
  CommTranslation ct = translate_job(job);
  const ArtifactNames names = artifact_names(job, options.out_dir, ct.translation.to);

  std::vector<reports::OperatorShare> shares;
  std::vector<Concern> concerns;
  concerns.push_back(check_operators(job, shares));
  concerns.push_back(check_comm(job, ct, names));
  concerns.push_back(check_storage(job));
  concerns.push_back(check_network(job, ct));
  concerns.push_back(check_scheduling(job));
  concerns.push_back(check_observability(job, ct));

  reports::Migration& m = run.migration;
  m.job = job.name;
  m.target = (job.profile.cluster.empty() ? job.profile_file.value : job.profile.cluster) + ": " +
             (job.matrix ? "backend " + job.matrix->backend + ", " : "") + ct.translation.to;
  for (const auto& c : concerns) {
    reports::MigrationConcern mc;
    mc.key = c.key();
    mc.title = c.title();
    mc.verdict = c.verdict();
    mc.summary = c.summary();
    if (mc.verdict == reports::Verdict::kNotChecked)
      mc.summary += (mc.summary.empty() ? "" : "; ") + std::string("not checked: ") + c.unchecked();
    for (const auto& i : c.items()) {
      mc.findings.push_back(run.report.findings.size());
      run.report.findings.push_back(i.finding);
    }
    m.concerns.push_back(std::move(mc));
  }
  m.changes = ordered_changes(concerns);
  m.inputs = job.inputs;
  m.operators = shares;

  if (options.out_dir) {
    run.artifacts.push_back(
        {"env", names.env_file,
         seal_artifact(compat::translate::render_env_file(ct.translation, ct.header))});
    if (job.script)
      run.artifacts.push_back(
          {"script", names.script,
           seal_artifact(render_migrated_script(job.script_text, job.script->value, ct.translation,
                                                ct.header, ct.translation.to == "hccl"))});
    // The command writes them after the plan; until then they are not.
    for (const auto& a : run.artifacts) m.artifacts.push_back({a.kind, a.path, "not written yet"});
  } else {
    m.artifacts.push_back({"env", "-", "not written: give --out-dir DIR"});
  }

  run.report.tool_version = options.tool_version;
  run.report.command = "migrate";
  run.report.hostname = options.hostname;
  run.report.profile = job.profile_file.value +
                       (job.profile.cluster.empty() ? "" : " (" + job.profile.cluster + ")");
  run.report.extra_json["migration"] = reports::migration_json(m);
  return run;
}

}  // namespace hn::migrate
