// `hnprecheck node`: fast node-local checks against the profile.
#include <unistd.h>

#include <memory>
#include <optional>

#include "compat/translate/env_input.h"
#include "formats/profile.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/node_sources.h"
#include "preflight/report_output.h"
#include "preflight/runner.h"
#include "probes/node_probes.h"

namespace hn::preflight::commands {

namespace {

int run(const po::variables_map& vm) {
  check_output_options(vm);
  auto timeout = timeout_from(vm);
  auto profile = std::make_shared<formats::Profile>(
      vm.count("profile") ? formats::load_profile_file(vm["profile"].as<std::string>())
                          : formats::default_profile());
  auto ctx = std::make_shared<probes::NodeContext>();
  ctx->profile = profile;
  ctx->sources = vm.count("snapshot") ? open_snapshot_sources(vm["snapshot"].as<std::string>())
                                      : open_live_sources();
  ctx->node = probes::identify_node(
      *profile, ctx->sources.hostname,
      vm.count("node") ? std::optional(vm["node"].as<std::string>()) : std::nullopt);
  std::optional<compat::translate::EnvInput> job;
  if (vm.count("env"))
    job = compat::translate::read_env_input_full(vm["env"].as<std::string>(),
                                                 compat::translate::InputFormat::kAuto);
  ctx->env = probes::collect_comm_env(environ, job ? &*job : nullptr);
  ctx->storage_jitter = vm["storage-jitter"].as<bool>();

  reports::Report report;
  report.tool_version = tool_version();
  report.command = "node";
  report.hostname = ctx->sources.hostname;
  report.profile =
      profile->source + (profile->cluster.empty() ? "" : " (" + profile->cluster + ")");
  report.started_unix_ms = unix_ms_now();
  report.findings = run_probes(probes::node_probes(ctx), RunOptions{timeout});
  report.finished_unix_ms = unix_ms_now();
  emit_report(report, vm);
  return reports::exit_code_for(report.findings, vm["strict"].as<bool>());
}

}  // namespace

Command node() {
  Command c;
  c.name = "node";
  c.summary =
      "fast node-local checks: plane binding, routes, comm-library NICs, RDMA, hardware, mounts";
  c.usage = "hnprecheck node [--profile FILE] [--snapshot FILE] [--json PATH] [options]";
  c.details =
      "Runs every node-local probe the profile asks for, each under a deadline, and prints a\n"
      "report grouped by layer. Made for Slurm Prolog/HealthCheckProgram and Kubernetes init\n"
      "containers: it finishes well under a second on a healthy node and never hangs.\n"
      "With --snapshot, the same probes run on a node captured by `hnprecheck snapshot`\n"
      "(route lookups are then emulated from the captured routes and rules).\n"
      "The job's NCCL/HCCL/Gloo/Open MPI interface variables come from this process's\n"
      "environment and, with --env FILE, from the job's env file, which wins (in a Prolog the\n"
      "process environment is not the job's).\n"
      "Storage: every storage.mounts entry is checked (present, fstype, options, source,\n"
      "capacity, a real write-read round trip) in a killable child, so a hung mount is a FAIL\n"
      "after its timeout_s. The I/O jitter workload runs only when the profile has a\n"
      "storage.jitter section or with --storage-jitter, since it takes duration_s seconds.";
  c.add_options = [](po::options_description& d, po::positional_options_description&) {
    add_profile_options(d);
    d.add_options()("snapshot", po::value<std::string>()->value_name("FILE"),
                    "replay a captured node instead of reading this one")(
        "env", po::value<std::string>()->value_name("FILE"),
        "the job's env file, launch script or manifest (read as translate reads it): its "
        "NCCL/HCCL/Gloo/Open MPI interface settings are judged against the parameter plane "
        "(they override this process's)")(
        "storage-jitter", po::bool_switch(),
        "also run the storage jitter workload on every profile mount (storage.jitter settings, "
        "or their defaults when the profile has none)");
    add_report_options(d);
    add_timeout_option(d, 30);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
