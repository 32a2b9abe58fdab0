// `hnprecheck translate`: communication-library parameters from one library's
// conventions to another's (or --check against the target's own rules), with
// a finding per input variable and the translated env file.
#include <algorithm>
#include <iostream>

#include "compat/input_error.h"
#include "compat/translate/env_input.h"
#include "compat/translate/env_output.h"
#include "compat/translate/translator.h"
#include "formats/profile.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/report_output.h"
#include "preflight/translate_listing.h"
#include "probes/translate_context.h"
#include "probes/translate_findings.h"
#include "reports/atomic_file.h"

extern char** environ;

namespace hn::preflight::commands {

namespace {

namespace tr = compat::translate;

std::string opt(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::string>() : "";
}

[[noreturn]] void usage(const std::string& field, const std::string& what) {
  throw compat::InputError("command line", 0, 0, field, what);
}

tr::RuleSet rules_for(const tr::RuleBook& book, const po::variables_map& vm, bool check) {
  const std::string from = opt(vm, "from"), to = opt(vm, "to");
  if (to.empty()) usage("--to", "is required (hccl or nccl)");
  if (check && !from.empty())
    usage("--check", "checks the --to library's own variables; drop --from");
  if (!check && from.empty())
    usage("--from", "is required (or use --check to validate a " + to + " configuration)");
  return check ? book.for_check(to) : book.for_translation(from, to);
}

probes::TranslateContextOptions context_options(const po::variables_map& vm) {
  probes::TranslateContextOptions o;
  o.platform = opt(vm, "platform");
  const auto& platforms = tr::known_platforms();
  if (std::find(platforms.begin(), platforms.end(), o.platform) == platforms.end())
    usage("--platform",
          "unknown platform '" + o.platform + "' (expected " + tr::join(platforms, ", ") + ")");
  o.node = opt(vm, "node");
  if (vm.count("node") && o.node.empty()) usage("--node", "needs a node name of the profile");
  o.plane = opt(vm, "plane");
  if (vm.count("pg-timeout")) {
    double s = vm["pg-timeout"].as<double>();
    if (!(s > 0)) usage("--pg-timeout", "must be a positive number of seconds");
    o.pg_timeout_s = s;
  }
  o.local_port_range = opt(vm, "local-port-range");
  o.reserved_ports = opt(vm, "reserved-ports");
  return o;
}

int run(const po::variables_map& vm) {
  check_output_options(vm);
  const bool check = vm["check"].as<bool>();
  const std::string out = opt(vm, "out");
  if (vm.count("out")) check_output_path("--out", out);
  bool out_on_stdout = out == "-";
  for (const char* f : {"json", "junit", "ctrf"})
    if (out_on_stdout && opt(vm, f) == "-")
      usage("--out", "and --" + std::string(f) + " cannot both write to stdout");

  std::vector<std::string> rule_files =
      vm.count("rules") ? vm["rules"].as<std::vector<std::string>>() : std::vector<std::string>{};
  tr::RuleBook book = tr::RuleBook::load(rule_files);
  tr::RuleSet rules = rules_for(book, vm, check);
  if (vm["list-rules"].as<bool>()) {
    std::cout << render_rule_listing(rules);
    return 0;
  }

  std::vector<std::string> inputs =
      vm.count("input") ? vm["input"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (inputs.empty() && !vm["from-env"].as<bool>())
    usage("INPUT", "give at least one env file, script or manifest, or --from-env");
  tr::InputFormat format = tr::input_format_from_string(opt(vm, "format"));
  std::vector<tr::EnvEntry> entries;
  if (vm["from-env"].as<bool>()) entries = tr::entries_from_environment(environ);
  tr::EnvInput read;
  for (const auto& path : inputs) {
    tr::EnvInput more = tr::read_env_input_full(path, format);
    entries.insert(entries.end(), more.entries.begin(), more.entries.end());
    read.notes.insert(read.notes.end(), more.notes.begin(), more.notes.end());
    read.flags.insert(read.flags.end(), more.flags.begin(), more.flags.end());
    read.empty_files.insert(read.empty_files.end(), more.empty_files.begin(),
                            more.empty_files.end());
  }

  std::optional<formats::Profile> profile;
  if (vm.count("profile"))
    profile = formats::load_profile_file(opt(vm, "profile"));
  else if (vm.count("node") || vm.count("plane"))
    usage("--node", "--node and --plane need --profile");
  tr::Context ctx =
      probes::make_translate_context(profile ? &*profile : nullptr, context_options(vm));
  // The framework's own flag sets the process-group timeout the job runs
  // with (the last one given wins); --pg-timeout still overrides it.
  if (ctx.pg_timeout_s)
    ctx.pg_timeout_source = "--pg-timeout";
  else if (!read.flags.empty()) {
    const tr::FrameworkFlag& f = read.flags.back();
    ctx.pg_timeout_s = f.seconds;
    ctx.pg_timeout_source = f.describe();
  }

  tr::Translation t = tr::translate(entries, rules, book, ctx);
  t.notes = std::move(read.notes);
  t.empty_files = std::move(read.empty_files);

  std::string header = check ? "hnprecheck translate --check --to " + rules.to
                             : "hnprecheck translate --from " + rules.from + " --to " + rules.to;

  reports::Report report;
  report.tool_version = tool_version();
  report.command = "translate";
  report.hostname = local_hostname();
  report.profile =
      profile ? profile->source + (profile->cluster.empty() ? "" : " (" + profile->cluster + ")")
              : "none";
  report.started_unix_ms = unix_ms_now();
  report.findings = probes::translation_findings(t);
  report.extra_json["translation"] = probes::translation_json(t);
  report.finished_unix_ms = unix_ms_now();
  std::vector<ExtraOutput> extra;
  if (!out.empty()) extra.push_back({out, tr::render_env_file(t, header)});
  emit_report(report, vm, out_on_stdout, extra);
  return reports::exit_code_for(report.findings, vm["strict"].as<bool>());
}

}  // namespace

Command translate() {
  Command c;
  c.name = "translate";
  c.summary =
      "translate NCCL/RCCL/Gloo/Open MPI/torch/oneCCL settings to HCCL (or NCCL), or check them";
  c.usage =
      "hnprecheck translate --from LIB --to hccl|nccl INPUT... [--profile FILE] [--out FILE.env]\n"
      "       hnprecheck translate --check --to hccl|nccl INPUT...";
  c.details =
      "Reads environment settings from env files, shell or Slurm scripts (export, #SBATCH\n"
      "--export, VAR=... cmd, env, mpirun -x, srun --export, docker -e, bash -c; values set in\n"
      "branches are conditional), manifests (containers[].env, envFrom, command/args, Ray\n"
      "env_vars) or the current environment, and translates each communication variable by the\n"
      "rule tables\n"
      "(units, ranges, grammars, value maps, defaults; each fact with its source). Every input\n"
      "variable gets a finding: translated, converted, clamped, needs-review, dropped or unknown;\n"
      "with --check, a value outside the library's own range or multiple is invalid (FAIL,\n"
      "with the nearest valid value). --out writes only valid values. Without --profile no\n"
      "profile is used; with it, interface settings resolve to the parameter plane's NIC and\n"
      "comm.pfc_priority sets HCCL_RDMA_SL.\n"
      "LIB: nccl, rccl, gloo, ompi, torch, oneccl (to hccl or nccl), hccl (to nccl).\n"
      "Exit 1 when anything needs review or is invalid, or a cross-variable rule is violated\n"
      "(with --strict also on clamped values, risky drops and unknown variables); 2 on a\n"
      "malformed line.";
  c.add_options = [](po::options_description& d, po::positional_options_description& p) {
    d.add_options()(
        "from", po::value<std::string>()->value_name("LIB"),
        "library the settings were written for; several, comma-separated (rccl,torch), for a job "
        "that uses more than one (the first named wins a variable both translate)")(
        "to", po::value<std::string>()->value_name("LIB"), "library to translate to: hccl or nccl")(
        "check", po::bool_switch(), "validate a --to configuration against its own rules")(
        "input", po::value<std::vector<std::string>>()->value_name("INPUT"),
        "env file, script or manifest")("from-env", po::bool_switch(),
                                        "also read the current environment (before the files)")(
        "format", po::value<std::string>()->default_value("auto")->value_name("FMT"),
        "input format: auto, env, script, k8s, nccl-conf or dockerfile")(
        "out", po::value<std::string>()->value_name("FILE"),
        "write the translated env file ('-' = stdout)")(
        "rules", po::value<std::vector<std::string>>()->value_name("FILE"),
        "rule table (TOML) that adds to or replaces an embedded one; repeatable")(
        "list-rules", po::bool_switch(), "print the rules in effect and exit");
    // Not add_profile_options(): translate has no embedded profile and does
    // not match the hostname, so that help text ("default: the embedded
    // profile for this machine") would be wrong here.
    d.add_options()(
        "profile", po::value<std::string>()->value_name("FILE"),
        "cluster profile (YAML): interface settings resolve to its parameter plane's NIC and "
        "comm.pfc_priority sets HCCL_RDMA_SL; default: none (no profile is used, and interface "
        "settings other than one exact NIC need review)")(
        "node", po::value<std::string>()->value_name("NAME"),
        "with --profile: translate for this node of the profile (its NIC, or its address as "
        "HCCL_IF_IP); default: only what holds on every node")(
        "plane", po::value<std::string>()->value_name("NAME"),
        "the plane whose NIC interface settings resolve to (default: first parameter plane)")(
        "platform", po::value<std::string>()->default_value("a2")->value_name("NAME"),
        "target platform for platform-specific ranges: a2, a3, atlas-training, atlas-inference, "
        "atlas-350, atlas-950")(
        "pg-timeout", po::value<double>()->value_name("SECONDS"),
        "the job's init_process_group(timeout=), checked against HCCL's timeouts")(
        "local-port-range", po::value<std::string>()->value_name("\"LOW HIGH\""),
        "the nodes' net.ipv4.ip_local_port_range (default: read from this host)")(
        "reserved-ports", po::value<std::string>()->value_name("LIST"),
        "the nodes' net.ipv4.ip_local_reserved_ports, with --local-port-range");
    add_report_options(d);
    p.add("input", -1);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
