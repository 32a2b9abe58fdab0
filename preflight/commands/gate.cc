// `hnprecheck gate --baseline B RUN...`: compare new runs with a baseline and
// block on a regression; `hnprecheck gate baseline --out B RUN...`: build the
// baseline. The work is in gate/ (pure); this file reads and writes the files.
#include <iostream>

#include "compat/input_error.h"
#include "compat/text_file.h"
#include "gate/baseline_json.h"
#include "gate/compare.h"
#include "gate/comparison_json.h"
#include "gate/figures.h"
#include "gate/findings.h"
#include "gate/page.h"
#include "gate/rules.h"
#include "gate/run_input.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/report_output.h"
#include "reports/atomic_file.h"
#include "reports/ctrf_report.h"
#include "reports/gate_html.h"
#include "reports/report_time.h"
#include "reports/uuid.h"

namespace hn::preflight::commands {

namespace {

constexpr const char* kReportOptions[] = {"json",       "junit",  "ctrf",    "markdown", "html",
                                          "prometheus", "strict", "verbose", "quiet"};

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw compat::InputError("command line", 0, 0, field, what);
}

std::vector<gate::Run> read_runs(const std::vector<std::string>& paths) {
  std::vector<gate::Run> runs;
  for (const auto& path : paths)
    runs.push_back(gate::read_run(compat::read_text_file(path), path, gate::builtin_figures()));
  return runs;
}

void print_baseline_summary(std::ostream& os, const std::string& out, const gate::Baseline& b) {
  std::map<std::string, int> kinds;
  for (const auto& r : b.runs) ++kinds[std::string(gate::to_string(r.kind))];
  std::string kind_text;
  for (const auto& [k, n] : kinds)
    kind_text += (kind_text.empty() ? "" : ", ") + std::to_string(n) + " " + k;
  int judged = 0, informational = 0, fallback = 0;
  std::vector<std::string> unknown, outliers;
  const gate::Thresholds defaults;
  // Baseline runs that dipped: the gate models them as a slow mode the
  // machine has (so a new run there is not a regression), which costs the
  // figure sensitivity; a run that was not healthy is better dropped.
  for (const auto& m : b.metrics) {
    if (!m.stated) {
      unknown.push_back(reports::identity(m.measurement));
      continue;
    }
    const auto sense = gate::sense_of(m.measurement.better);
    if (!sense) {
      ++informational;
      continue;
    }
    ++judged;
    if (static_cast<int>(m.values.size()) < defaults.min_runs) {
      ++fallback;
      continue;
    }
    const gate::Spread s = *m.summary();
    for (std::size_t i : gate::dips_of(*sense, m.values))
        outliers.push_back(reports::identity(m.measurement) + " in " + b.runs[m.runs[i]].source +
                           ": " + gate::format_value(m.values[i]) + " vs median " +
                           gate::format_value(s.centre));
  }
  os << "baseline " << out << ": " << b.runs.size() << " run(s) (" << kind_text << "), id " << b.id
     << "\n  figures: " << b.metrics.size() << " (" << judged << " with a direction, "
     << informational << " informational, " << unknown.size() << " without a direction)\n"
     << "  checks: " << b.checks.size() << ", snapshots: " << b.states.size() << " host(s)\n";
  if (fallback)
    os << "  note: " << fallback << " figure(s) have fewer than " << defaults.min_runs
       << " values: with the default rules the gate cannot know their noise and judges them by "
          "the fallback (a change of more than "
       << gate::format_percent(defaults.fallback_change) << ")\n";
  if (!outliers.empty()) {
    os << "  note: " << outliers.size()
       << " value(s) dipped beyond their figure's noise (3.5 MADs); the gate takes them for a "
          "slow mode of this machine, so a loss must go beyond them. Drop a run that was not "
          "healthy and build the baseline again:\n";
    for (std::size_t i = 0; i < outliers.size() && i < 5; ++i) os << "    " << outliers[i] << "\n";
    if (outliers.size() > 5) os << "    ... and " << outliers.size() - 5 << " more\n";
  }
  if (!unknown.empty()) {
    os << "  note: no direction is known for " << unknown.size()
       << " figure(s); the gate reports them as GATE-METRIC-UNJUDGED unless a rules file gives "
          "one:\n";
    for (std::size_t i = 0; i < unknown.size() && i < 10; ++i) os << "    " << unknown[i] << "\n";
    if (unknown.size() > 10) os << "    ... and " << unknown.size() - 10 << " more\n";
  }
}

int run_baseline(const po::variables_map& vm, const std::vector<std::string>& paths) {
  if (vm.count("baseline"))
    bad("--baseline", "compares runs with a baseline; `gate baseline` builds one");
  if (vm.count("rules")) bad("--rules", "applies when comparing, not when building a baseline");
  for (const char* o : kReportOptions)
    if (vm.count(o) && !vm[o].defaulted())
      bad(std::string("--") + o,
          "is an option of the comparison; `gate baseline` writes --out only");
  if (!vm.count("out")) bad("--out", "is required: where to write the baseline ('-' = stdout)");
  const std::string out = vm["out"].as<std::string>();
  check_output_path("--out", out);
  if (paths.empty())
    bad("RUN", "give at least one run (a certificate, bench JSON, JSON report or snapshot)");
  const auto runs = read_runs(paths);
  const gate::Baseline b = gate::build_baseline(
      runs, reports::random_uuid(), reports::format_iso8601_ms(unix_ms_now()), tool_version());
  print_baseline_summary(out == "-" ? std::cerr : std::cout, out, b);
  reports::write_output(out, gate::baseline_to_json(b));
  return 0;
}

int run_compare(const po::variables_map& vm, const std::vector<std::string>& paths) {
  if (vm.count("out")) bad("--out", "is for `gate baseline`; write the comparison with --json");
  if (!vm.count("baseline"))
    bad("--baseline", "is required (build one with `hnprecheck gate baseline --out FILE RUN...`)");
  if (paths.empty()) bad("RUN", "give at least one run to compare with the baseline");
  check_output_options(vm);
  const std::int64_t started = unix_ms_now();
  const std::string base_path = vm["baseline"].as<std::string>();
  gate::Rules rules;
  if (vm.count("rules")) {
    const std::string path = vm["rules"].as<std::string>();
    rules = gate::parse_rules(compat::read_text_file(path), path);
  }
  const gate::Baseline base =
      gate::baseline_from_json(compat::read_text_file(base_path), base_path);
  const auto runs = read_runs(paths);
  const gate::Comparison c = gate::compare(base, runs, rules);

  reports::Report report;
  report.tool_version = tool_version();
  report.command = "gate";
  report.hostname = local_hostname();
  report.started_unix_ms = started;
  report.findings = gate::gate_findings(c);
  report.extra_json["gate"] = gate::comparison_json(c, base, base_path, rules);
  report.finished_unix_ms = unix_ms_now();

  std::ostream& os = report_on_stdout(vm) ? std::cerr : std::cout;
  os << "hnprecheck gate: " << runs.size() << " run(s) vs baseline " << base_path << " ("
     << base.runs.size() << " run(s), created " << base.created << "); rules: " << rules.source
     << "\n";
  for (const auto& line : gate::tally_lines(gate::tally(c))) os << "  " << line << "\n";
  for (const auto& run : runs)
    for (const auto& b : base.runs)
      if (run.info.sha256 == b.sha256)
        os << "  note: " << run.info.source << " is the same file as the baseline's run "
           << b.source << "\n";
  os << "\n";

  reports::CtrfBaseline ctrf{
      base.id, base.created, base_path, {{"runs", std::to_string(base.runs.size())}}};
  const auto page = gate::gate_page(c, base, base_path, runs.size(), rules.source);
  ReportRenderers renderers;
  renderers.html = [&](const reports::Report& r) { return reports::render_gate_html(r, page); };
  renderers.ctrf = [&](const reports::Report& r) { return reports::render_ctrf(r, &ctrf); };
  emit_report(report, vm, false, {}, renderers);
  return reports::exit_code_for(report.findings, vm["strict"].as<bool>());
}

int run(const po::variables_map& vm) {
  std::vector<std::string> args =
      vm.count("args") ? vm["args"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (!args.empty() && args.front() == "baseline")
    return run_baseline(vm, std::vector<std::string>(args.begin() + 1, args.end()));
  return run_compare(vm, args);
}

}  // namespace

Command gate() {
  Command c;
  c.name = "gate";
  c.summary = "compare runs with a baseline and fail on a regression, telling noise from change";
  c.usage =
      "hnprecheck gate --baseline BASE.json [--rules RULES.toml] [report options] RUN...\n"
      "       hnprecheck gate baseline --out BASE.json RUN...";
  c.details =
      "A run is a certificate (certify), the JSON of bench, a JSON report (node) or a snapshot;\n"
      "the kind is recognised by content. `gate baseline` keeps every figure of the runs with\n"
      "its values, every check's status and each host's snapshot. `gate` judges the median of\n"
      "the new runs on a log scale against the baseline's median and robust spread (MAD x\n"
      "1.4826): a band from Student's t for 2% false alarms per call shared by all judged\n"
      "figures, never narrower than 10%; each figure states the smallest loss it catches and\n"
      "is GATE-METRIC-INSENSITIVE when that is over 20%. Recommended: a baseline of 10 runs, 3\n"
      "new runs per call (fewer than 5 baseline values: a stated 25% fallback). Runs of another\n"
      "op, rank count, transport or sizes are exit 2; a run on another machine is flagged\n"
      "(GATE-MACHINE). A check that held in the baseline and\n"
      "warns or fails now is a regression; one that already failed is reported as still\n"
      "failing. Snapshot differences are classified by impact (profiles/gate/drift.toml).\n"
      "Anything in the baseline that the new runs lack is a finding. Rules: docs/gate-rules.md.";
  c.exit_codes =
      "Exit codes:\n"
      "  0  nothing regressed (warnings allowed unless --strict); `gate baseline`: written\n"
      "  1  a regression: a figure beyond its band, a check that held and now warns or fails,\n"
      "     a significant drift, or a baseline item missing from the new runs\n"
      "  2  bad usage or invalid input (a malformed run, baseline or rules file: the message\n"
      "     names the file and the field)\n"
      "  3  the tool could not run (a file could not be written, internal error)\n";
  c.add_options = [](po::options_description& d, po::positional_options_description& p) {
    d.add_options()("baseline", po::value<std::string>()->value_name("FILE"),
                    "the baseline to compare with (from `gate baseline`)")(
        "rules", po::value<std::string>()->value_name("FILE"),
        "TOML rules: thresholds, per-figure and per-check overrides (docs/gate-rules.md)")(
        "out", po::value<std::string>()->value_name("FILE"),
        "`gate baseline`: where to write the baseline ('-' = stdout)")(
        "args", po::value<std::vector<std::string>>()->value_name("RUN"), "runs");
    add_report_options(d);
    p.add("args", -1);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
