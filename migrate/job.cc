#include "migrate/job.h"

#include <cctype>
#include <filesystem>

#include "compat/builtin_ops.h"
#include "compat/input_error.h"
#include "compat/text_file.h"
#include "compat/translate/env_input.h"
#include "compat/translate/shell_input.h"
#include "compat/units.h"
#include "migrate/checkpoint_estimate.h"
#include "migrate/manifest.h"

namespace hn::migrate {

namespace tr = compat::translate;

std::optional<long long> Job::count(const std::string& key) const {
  auto it = layout.find(key);
  if (it == layout.end() || it->second.dynamic) return std::nullopt;
  const std::string& v = it->second.value;
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
    return std::nullopt;
  long long n = std::stoll(v);
  return n > 0 ? std::optional<long long>(n) : std::nullopt;
}

std::vector<const JobPath*> Job::paths_of(const std::string& role) const {
  std::vector<const JobPath*> out;
  for (const auto& p : paths)
    if (p.role == role) out.push_back(&p);
  return out;
}

namespace {

Sourced cli(const std::string& v, const std::string& option) {
  return {v, option, "command line", false};
}
Sourced manifest(const std::string& v, const std::string& where) {
  return {v, where, "manifest", false};
}
Sourced launch(const Found& f) {
  return {f.value, f.where(), "launch", f.dynamic};
}

// Collects the candidates of one value, strongest first; the first is used
// and every candidate is recorded for the report.
class Choice {
 public:
  Choice(Job& job, std::string name) : job_(job), name_(std::move(name)) {}
  Choice& add(std::optional<Sourced> s) {
    if (s) candidates_.push_back(std::move(*s));
    return *this;
  }
  std::optional<Sourced> pick() {
    // A default that lost is not worth a line of the report.
    for (size_t i = 0; i < candidates_.size(); ++i)
      if (i == 0 || candidates_[i].origin != "default")
        job_.inputs.push_back(
            {name_, candidates_[i].value, candidates_[i].where, candidates_[i].origin, i == 0});
    if (candidates_.empty()) return std::nullopt;
    return candidates_.front();
  }

 private:
  Job& job_;
  std::string name_;
  std::vector<Sourced> candidates_;
};

template <class T>
std::optional<Sourced> from_manifest(const std::optional<Declared<T>>& d) {
  if (!d) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>)
    return manifest(d->value, d->where);
  else
    return manifest(std::to_string(d->value), d->where);
}

std::optional<Sourced> from_cli(const std::optional<std::string>& v, const char* option) {
  if (!v) return std::nullopt;
  return cli(*v, option);
}

std::optional<Sourced> from_launch(const Discovery& d, const std::string& key) {
  const Found* f = d.last(key);
  if (!f) return std::nullopt;
  return launch(*f);
}

[[noreturn]] void missing(const std::string& field, const std::string& what) {
  throw compat::InputError("command line", 0, 0, field, what);
}

void read_launch_material(Job& job) {
  for (const auto& e : job.env_files) {
    auto more = tr::read_env_input(e.value, tr::InputFormat::kEnvFile);
    job.env.insert(job.env.end(), more.begin(), more.end());
  }
  if (job.script) {
    job.script_text = compat::read_text_file(job.script->value, compat::kMaxLaunchFileBytes);
    auto more = tr::parse_env_input(job.script_text, job.script->value, tr::InputFormat::kScript);
    job.env.insert(job.env.end(), more.begin(), more.end());
    job.discovery = discover_launch_script(job.script_text, job.script->value);
  }
  if (job.k8s) {
    auto more = tr::read_env_input(job.k8s->value, tr::InputFormat::kManifest);
    job.env.insert(job.env.end(), more.begin(), more.end());
  }
}

// ranks per node: a torchrun in the script starts nproc-per-node processes
// whatever srun/sbatch say about tasks (one launcher task per node).
std::optional<Sourced> ranks_per_node_found(const Discovery& d) {
  const Found* torchrun = nullptr;
  for (const Found* f : d.all("ranks_per_node"))
    if (f->via.rfind("torchrun", 0) == 0) torchrun = f;
  if (torchrun) return launch(*torchrun);
  return from_launch(d, "ranks_per_node");
}

void resolve_layout(Job& job, const Manifest* m) {
  const Discovery& d = job.discovery;
  auto layout = [&](const std::string& key, std::optional<Sourced> from_m,
                    std::optional<Sourced> found) {
    if (auto v = Choice(job, key).add(from_m).add(found).pick()) job.layout[key] = *v;
  };
  layout("nodes", m ? from_manifest(m->nodes) : std::nullopt, from_launch(d, "nodes"));
  layout("ranks_per_node", m ? from_manifest(m->ranks_per_node) : std::nullopt,
         ranks_per_node_found(d));
  layout("gpus_per_node", std::nullopt, from_launch(d, "gpus_per_node"));
  if (!job.layout.count("ranks_per_node") && job.layout.count("gpus_per_node")) {
    Sourced s = job.layout["gpus_per_node"];
    s.where = "one rank per GPU requested at " + s.where;
    s.origin = "derived";
    job.layout["ranks_per_node"] = s;
    job.inputs.push_back({"ranks_per_node", s.value, s.where, s.origin, true});
  }
  for (const char* key : {"tp", "pp", "cp", "ep"}) {
    std::optional<Declared<long long>> md;
    if (m)
      md = std::string(key) == "tp"   ? m->tp
           : std::string(key) == "pp" ? m->pp
           : std::string(key) == "cp" ? m->cp
                                      : m->ep;
    Sourced fallback{"1", "Megatron-LM's default", "default", false};
    auto v = Choice(job, key).add(from_manifest(md)).add(from_launch(d, key)).add(fallback).pick();
    job.layout[key] = *v;
  }
  if (m && m->dp) job.layout["dp"] = *Choice(job, "dp").add(from_manifest(m->dp)).pick();
  if (auto etp = Choice(job, "etp").add(from_launch(d, "etp")).pick()) job.layout["etp"] = *etp;
}

void resolve_paths(Job& job, const Manifest* m) {
  auto role = [&](const std::string& name, std::vector<Sourced> declared, const std::string& key) {
    std::vector<Sourced> found;
    for (const Found* f : job.discovery.all(key)) found.push_back(launch(*f));
    const bool use_declared = !declared.empty();
    for (const auto& s : declared) {
      job.paths.push_back({name, s});
      job.inputs.push_back({name, s.value, s.where, s.origin, true});
    }
    for (const auto& s : found) {
      if (!use_declared) job.paths.push_back({name, s});
      job.inputs.push_back({name, s.value, s.where, s.origin, !use_declared});
    }
  };
  auto decl = [](const std::vector<Declared<std::string>>& v) {
    std::vector<Sourced> out;
    for (const auto& d : v) out.push_back(manifest(d.value, d.where));
    return out;
  };
  auto one = [](const std::optional<Declared<std::string>>& d) {
    std::vector<Sourced> out;
    if (d) out.push_back(manifest(d->value, d->where));
    return out;
  };
  role("data", m ? decl(m->data) : std::vector<Sourced>{}, "data");
  role("checkpoint", m ? one(m->checkpoint) : std::vector<Sourced>{}, "checkpoint");
  role("load", m ? one(m->load) : std::vector<Sourced>{}, "load");
  role("logs", m ? decl(m->logs) : std::vector<Sourced>{}, "logs");
  role("metrics", m ? decl(m->metrics) : std::vector<Sourced>{}, "metrics");
  for (const auto& p : job.paths)
    if (p.role == "metrics") job.metrics.push_back(p.path);
}

}  // namespace

Job resolve_job(const JobOptions& o) {
  Job job;
  std::optional<Manifest> m;
  if (o.manifest) {
    m = load_manifest(*o.manifest);
    job.manifest = cli(*o.manifest, "--manifest");
  }
  const Manifest* mp = m ? &*m : nullptr;
  // The command line's value, else the manifest's, else the fallback.
  auto choose = [&](const char* name, const std::optional<std::string>& cli_value,
                    const char* option, std::optional<Declared<std::string>> Manifest::*field,
                    std::optional<Sourced> fallback = std::nullopt) {
    return Choice(job, name)
        .add(from_cli(cli_value, option))
        .add(mp ? from_manifest(mp->*field) : std::nullopt)
        .add(fallback)
        .pick();
  };

  // Launch material: the command line replaces the manifest's.
  job.script = choose("script", o.script, "--script", &Manifest::script);
  job.k8s = choose("k8s", o.k8s, "--k8s", &Manifest::k8s);
  if (!o.env_files.empty()) {
    for (const auto& e : o.env_files) job.env_files.push_back(cli(e, "--env"));
  } else if (mp) {
    for (const auto& e : mp->env_files) job.env_files.push_back(manifest(e.value, e.where));
  }
  for (const auto& e : job.env_files)
    job.inputs.push_back({"env_file", e.value, e.where, e.origin, true});
  read_launch_material(job);

  auto name = choose("name", o.name, "--name", &Manifest::name);
  const Directive* sbatch_name = nullptr;
  for (const auto& d : job.discovery.directives)
    if (d.tool == "sbatch" && d.option == "--job-name" && !d.value.empty()) sbatch_name = &d;
  if (name) {
    job.name = name->value;
  } else if (sbatch_name) {
    // The name Slurm knows the job by, made safe as a file name (the env
    // file is named after it).
    job.name = sbatch_name->value;
    for (auto& ch : job.name)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.')
        ch = '_';
    if (job.name.front() == '.') job.name.front() = '_';
    job.inputs.push_back({"name", job.name, sbatch_name->where(), "launch", true});
  } else if (job.script)
    job.name = std::filesystem::path(job.script->value).stem().string();
  else if (o.manifest)
    job.name = std::filesystem::path(*o.manifest).stem().string();
  else
    job.name = "job";

  // Target.
  auto profile = choose("profile", o.profile, "--profile", &Manifest::profile);
  if (!profile)
    missing("--profile",
            "give the target cluster's profile ([target] profile in the manifest, "
            "or --profile FILE)");
  job.profile_file = *profile;
  job.profile = formats::load_profile_file(profile->value);

  job.model = choose("model", o.model, "--model", &Manifest::model);
  if (auto f = choose("model_format", o.model_format, "--format", &Manifest::model_format))
    job.model_format = f->value;
  // --backend and --matrix are one choice: the command line's wins as a whole.
  auto backend = from_cli(o.backend, "--backend");
  auto matrix = from_cli(o.matrix, "--matrix");
  if (backend && matrix) missing("--matrix", "give either --backend or --matrix, not both");
  if (!backend && !matrix && mp) {
    backend = from_manifest(mp->backend);
    matrix = from_manifest(mp->matrix);
  }
  if (backend) Choice(job, "backend").add(backend).pick();
  if (matrix) Choice(job, "matrix").add(matrix).pick();
  if (backend) job.matrix = compat::builtin_matrix(backend->value);
  if (matrix) job.matrix = compat::load_op_matrix_file(matrix->value);
  if (auto mapping = choose("mapping", o.mapping, "--mapping", &Manifest::mapping))
    job.mapping = compat::parse_op_mapping(compat::read_text_file(mapping->value), mapping->value);

  // Communication libraries.
  job.from =
      *choose("from", o.from, "--from", &Manifest::from, Sourced{"torch", "", "default", false});
  std::optional<Sourced> profile_library;
  if (job.profile.comm.library == "hccl" || job.profile.comm.library == "nccl")
    profile_library =
        Sourced{job.profile.comm.library, profile->value + " comm.library", "profile", false};
  job.to = *Choice(job, "to")
                .add(from_cli(o.to, "--to"))
                .add(mp ? from_manifest(mp->library) : std::nullopt)
                .add(profile_library)
                .add(Sourced{"hccl", "", "default", false})
                .pick();
  job.platform = *choose("platform", o.platform, "--platform", &Manifest::platform,
                         Sourced{"a2", "", "default", false});
  job.plane = choose("plane", o.plane, "--plane", &Manifest::plane);
  job.local_port_range = choose("local_port_range", o.local_port_range, "--local-port-range",
                                &Manifest::local_port_range);
  job.reserved_ports =
      choose("reserved_ports", o.reserved_ports, "--reserved-ports", &Manifest::reserved_ports);
  std::optional<Sourced> pg_cli, pg_manifest;
  if (o.pg_timeout_s)
    pg_cli = cli(std::to_string(static_cast<long long>(*o.pg_timeout_s)), "--pg-timeout");
  if (mp && mp->pg_timeout_s)
    pg_manifest = manifest(std::to_string(static_cast<long long>(mp->pg_timeout_s->value)),
                           mp->pg_timeout_s->where);
  job.pg_timeout_s = Choice(job, "pg_timeout_s")
                         .add(pg_cli)
                         .add(pg_manifest)
                         .add(from_launch(job.discovery, "pg_timeout_s"))
                         .pick();
  if (!job.pg_timeout_s && job.script) {
    // A Megatron-LM launch without the flag runs with Megatron's default.
    auto flags = tr::framework_flags(job.script_text, job.script->value);
    if (!flags.empty() && flags.back().defaulted) {
      job.pg_timeout_s = Sourced{std::to_string(static_cast<long long>(flags.back().seconds)),
                                 flags.back().describe(), "default", false};
      job.inputs.push_back(
          {"pg_timeout_s", job.pg_timeout_s->value, job.pg_timeout_s->where, "default", true});
    }
  }

  resolve_layout(job, mp);
  resolve_paths(job, mp);

  std::optional<Sourced> size_cli, size_manifest;
  if (o.checkpoint_size) {
    size_cli = cli(compat::format_size(*o.checkpoint_size), "--checkpoint-size");
    job.checkpoint_bytes = *o.checkpoint_size;
  } else if (mp && mp->checkpoint_size) {
    job.checkpoint_bytes = mp->checkpoint_size->value;
  }
  if (mp && mp->checkpoint_size)
    size_manifest =
        manifest(compat::format_size(mp->checkpoint_size->value), mp->checkpoint_size->where);
  std::optional<Sourced> size_estimate;
  if (auto e = estimate_checkpoint(job.discovery)) {
    size_estimate = Sourced{compat::format_size(e->bytes),
                            "estimated at " + e->where + ": " + e->how, "derived", false};
    if (!job.checkpoint_bytes) job.checkpoint_bytes = e->bytes;
  }
  job.checkpoint_size =
      Choice(job, "checkpoint_size").add(size_cli).add(size_manifest).add(size_estimate).pick();

  // Evidence: the command line's lists replace the manifest's.
  std::optional<std::string> certificate = o.certificate;
  if (!certificate && mp && mp->certificate) certificate = mp->certificate->value;
  std::vector<std::string> snapshots = o.snapshots, reports = o.node_reports;
  if (snapshots.empty() && mp)
    for (const auto& s : mp->snapshots) snapshots.push_back(s.value);
  if (reports.empty() && mp)
    for (const auto& s : mp->node_reports) reports.push_back(s.value);
  job.evidence = load_evidence(certificate, reports, snapshots);
  if (certificate) job.inputs.push_back({"certificate", *certificate, "", "evidence", true});
  for (const auto& s : snapshots) job.inputs.push_back({"snapshot", s, "", "evidence", true});
  for (const auto& s : reports) job.inputs.push_back({"node_report", s, "", "evidence", true});
  return job;
}

}  // namespace hn::migrate
