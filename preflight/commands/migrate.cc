// `hnprecheck migrate [MANIFEST]`: one migration report for a job, covering
// the six concerns (operators, comm parameters, storage access, network
// policy, scheduling, observability). The work is in migrate/; this file is
// the command line.
#include <iostream>

#include "compat/input_error.h"
#include "compat/units.h"
#include "migrate/artifacts.h"
#include "migrate/plan.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/report_output.h"
#include "reports/atomic_file.h"

namespace hn::preflight::commands {

namespace {

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  no concern needs changes or is blocked (a concern not fully checked says what\n"
    "     was not; --strict makes that 1)\n"
    "  1  a concern needs changes or is blocked, or with --strict is not fully checked\n"
    "  2  bad input: a malformed manifest (file:line and key), profile, script, model,\n"
    "     certificate or option; an --out-dir file that is not ours\n"
    "  3  the tool could not run, or a report or artifact could not be written\n";

std::optional<std::string> opt(const po::variables_map& vm, const char* name) {
  if (!vm.count(name)) return std::nullopt;
  return vm[name].as<std::string>();
}

std::vector<std::string> opts(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

migrate::JobOptions job_options(const po::variables_map& vm) {
  migrate::JobOptions o;
  o.manifest = opt(vm, "manifest");
  o.name = opt(vm, "name");
  o.script = opt(vm, "script");
  o.k8s = opt(vm, "k8s");
  o.env_files = opts(vm, "env");
  o.model = opt(vm, "model");
  o.model_format = opt(vm, "format");
  o.profile = opt(vm, "profile");
  o.backend = opt(vm, "backend");
  o.matrix = opt(vm, "matrix");
  o.mapping = opt(vm, "mapping");
  o.from = opt(vm, "from");
  o.to = opt(vm, "to");
  o.platform = opt(vm, "platform");
  o.plane = opt(vm, "plane");
  o.local_port_range = opt(vm, "local-port-range");
  o.reserved_ports = opt(vm, "reserved-ports");
  o.certificate = opt(vm, "certificate");
  o.snapshots = opts(vm, "snapshot");
  o.node_reports = opts(vm, "node-report");
  if (vm.count("pg-timeout")) {
    double s = vm["pg-timeout"].as<double>();
    if (!(s > 0))
      throw compat::InputError("command line", 0, 0, "--pg-timeout",
                               "must be a positive number of seconds");
    o.pg_timeout_s = s;
  }
  if (auto size = opt(vm, "checkpoint-size")) {
    try {
      o.checkpoint_size = compat::parse_size(*size);
    } catch (const std::invalid_argument& e) {
      throw compat::InputError("command line", 0, 0, "--checkpoint-size", e.what());
    }
  }
  if (!o.manifest && !o.script && !o.k8s && o.env_files.empty() && !o.model)
    throw compat::InputError("command line", 0, 0, "",
                             "give a job manifest, or the job's parts: --script/--env/--k8s, "
                             "--model and --profile");
  return o;
}

// Every file the job reads: none of them may be overwritten by an artifact.
std::vector<std::string> job_inputs(const migrate::Job& job) {
  std::vector<std::string> in;
  if (job.manifest) in.push_back(job.manifest->value);
  if (job.script) in.push_back(job.script->value);
  if (job.k8s) in.push_back(job.k8s->value);
  for (const auto& e : job.env_files) in.push_back(e.value);
  if (job.model) in.push_back(job.model->value);
  in.push_back(job.profile_file.value);
  return in;
}

int run(const po::variables_map& vm) {
  check_output_options(vm);
  const std::int64_t started = unix_ms_now();
  migrate::Job job = migrate::resolve_job(job_options(vm));
  std::optional<std::string> out_dir = opt(vm, "out-dir");
  if (out_dir)
    migrate::check_artifact_paths(*out_dir, migrate::planned_artifact_paths(job, *out_dir),
                                  job_inputs(job));

  migrate::MigrationRun r =
      migrate::plan_migration(job, {out_dir, tool_version(), local_hostname()});
  r.report.started_unix_ms = started;
  r.report.finished_unix_ms = unix_ms_now();

  // The env file and the script belong together: both are written, or
  // neither is, and the report says which, before it is written itself.
  int write_failed = 0;
  if (!r.artifacts.empty()) {
    std::vector<reports::OutputFile> files;
    for (const auto& a : r.artifacts) files.push_back({a.path, a.content});
    std::string status = "written";
    try {
      reports::write_outputs_together(files);
    } catch (const std::exception& e) {
      status = std::string("not written: ") + e.what();
      write_failed = 3;
      std::cerr << "hnprecheck migrate: the artifacts were not written: " << e.what() << "\n";
    }
    for (auto& a : r.migration.artifacts) a.status = status;
    r.report.extra_json["migration"] = reports::migration_json(r.migration);
  }
  std::vector<ExtraOutput> extra;
  const reports::Migration& m = r.migration;
  ReportRenderers renderers;
  renderers.text = [&m](const reports::Report& rep, const reports::TextOptions& o) {
    return reports::render_migration_text(rep, m, o);
  };
  renderers.markdown = [&m](const reports::Report& rep) {
    return reports::render_migration_markdown(rep, m);
  };
  renderers.html = [&m](const reports::Report& rep) {
    return reports::render_migration_html(rep, m);
  };
  emit_report(r.report, vm, false, extra, renderers);
  return write_failed
             ? write_failed
             : reports::migration_exit_code(m, vm.count("strict") && vm["strict"].as<bool>());
}

}  // namespace

Command migrate() {
  Command c;
  c.name = "migrate";
  c.summary =
      "one migration report for a job: operators, comm parameters, storage, network, "
      "scheduling, observability";
  c.usage =
      "hnprecheck migrate MANIFEST.toml [--out-dir DIR] [options]\n"
      "       hnprecheck migrate --script train.sbatch --model model.onnx --profile cluster.yaml "
      "--backend NAME";
  c.details =
      "Judges whether a job written for the traditional stack can move to the target cluster,\n"
      "concern by concern, each ready, needs changes or blocked: operators (the model against\n"
      "the backend's operator matrix, as `ops`), comm parameters (the launch material's\n"
      "settings translated, as `translate`, with the link-setup wait before and after),\n"
      "storage access (every data/checkpoint path on the profile's shared mounts, checkpoint\n"
      "size against free space, checkpoint time from measured throughput), network policy\n"
      "(the plane of collectives, rendezvous and storage traffic; ports; settings pinned to\n"
      "the management or business plane), scheduling (world size against hosts x accelerators,\n"
      "TP groups inside one high-speed domain, scheduler directives) and observability (comm\n"
      "logs, log paths, metrics, the node/certify checks that cover the job).\n"
      "The job comes from a TOML manifest (docs/manifest-schema.md) and the options below;\n"
      "what both leave out is read from the launch script (#SBATCH lines, srun and torchrun\n"
      "options, Megatron-LM flags such as --tensor-model-parallel-size, --save, --data-path),\n"
      "and the report says where each value was found. Options win over the manifest, which\n"
      "wins over the script. --out-dir writes the translated env file and a copy of the script\n"
      "with the changes applied; an existing file there that migrate did not write is never\n"
      "overwritten. The report opens with the six verdicts and the changes, blocking first.";
  c.exit_codes = kExitCodes;
  c.add_options = [](po::options_description& d, po::positional_options_description& p) {
    d.add_options()("manifest", po::value<std::string>()->value_name("FILE"),
                    "the job manifest (TOML, docs/manifest-schema.md)")(
        "script", po::value<std::string>()->value_name("FILE"),
        "the launch script (shell or Slurm batch script)")(
        "env", po::value<std::vector<std::string>>()->value_name("FILE"),
        "an env file of the job (repeatable)")("k8s", po::value<std::string>()->value_name("FILE"),
                                               "the job's Kubernetes manifest")(
        "model", po::value<std::string>()->value_name("FILE"),
        "the model: ONNX, torch.profiler trace or op list")(
        "format", po::value<std::string>()->value_name("FMT"),
        "the model's format: auto, onnx, trace, yaml or text")(
        "profile", po::value<std::string>()->value_name("FILE"),
        "the target cluster's profile (YAML)")(
        "backend", po::value<std::string>()->value_name("NAME"),
        "a built-in operator matrix (hnprecheck ops --list-backends)")(
        "matrix", po::value<std::string>()->value_name("FILE"), "an operator matrix (YAML)")(
        "mapping", po::value<std::string>()->value_name("FILE"), "an operator mapping table")(
        "from", po::value<std::string>()->value_name("LIB"),
        "the library the job's settings were written for (default torch)")(
        "to", po::value<std::string>()->value_name("LIB"),
        "the target library: hccl or nccl (default: the profile's comm.library, else hccl)")(
        "platform", po::value<std::string>()->value_name("NAME"),
        "the target platform for HCCL ranges (default a2)")(
        "plane", po::value<std::string>()->value_name("NAME"),
        "the parameter plane (default: the profile's first of type parameter)")(
        "pg-timeout", po::value<double>()->value_name("SECONDS"),
        "the job's init_process_group(timeout=) (default: --distributed-timeout-minutes)")(
        "local-port-range", po::value<std::string>()->value_name("\"LOW HIGH\""),
        "the nodes' net.ipv4.ip_local_port_range (default: read from this host)")(
        "reserved-ports", po::value<std::string>()->value_name("LIST"),
        "the nodes' net.ipv4.ip_local_reserved_ports")("checkpoint-size",
                                                       po::value<std::string>()->value_name("SIZE"),
                                                       "the size of one checkpoint, e.g. 700GiB")(
        "certificate", po::value<std::string>()->value_name("FILE"),
        "a certify certificate of the target cluster")(
        "snapshot", po::value<std::vector<std::string>>()->value_name("FILE"),
        "a snapshot of a target node (repeatable)")(
        "node-report", po::value<std::vector<std::string>>()->value_name("FILE"),
        "a `node --json` report of a target node (repeatable)")(
        "name", po::value<std::string>()->value_name("NAME"),
        "the job's name (default: the manifest's, else the script's file name)")(
        "out-dir", po::value<std::string>()->value_name("DIR"),
        "write the translated env file and the migrated script here");
    add_report_options(d);
    p.add("manifest", 1);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
