// `hnprecheck ops MODEL...`: operator compatibility of models, traces and op
// lists against a backend's operator matrix.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "compat/builtin_ops.h"
#include "compat/input_error.h"
#include "compat/op_check.h"
#include "compat/op_sources.h"
#include "compat/text_file.h"
#include "preflight/command.h"
#include "preflight/commands/commands.h"
#include "preflight/read_deadline.h"
#include "preflight/report_output.h"
#include "probes/op_findings.h"
#include "reports/atomic_file.h"
#include "reports/migration_csv.h"

namespace hn::preflight::commands {

namespace {

using nlohmann::json;

json pair_json(const compat::OpPairResult& p) {
  return {{"op", p.op},
          {"naming", p.naming},
          {"dtype", p.dtype},
          {"class", compat::to_string(p.cls)},
          {"matrix_op", p.matrix_op},
          {"occurrences", p.occurrences},
          {"composite_calls", p.composite_calls},
          {"nested", p.nested},
          {"blocking", p.blocking},
          {"where", p.where},
          {"violations", p.violations},
          {"self_us", p.self_us},
          {"total_us", p.total_us},
          {"start", p.first_position},
          {"end", p.last_position},
          {"replacement", p.replacement}};
}

json file_json(const compat::OpCheckResult& r) {
  json by_class = json::object(), pairs_by_class = json::object();
  for (auto c :
       {compat::OpClass::kSupported, compat::OpClass::kNoKernel, compat::OpClass::kDecomposed,
        compat::OpClass::kUnsupportedOp, compat::OpClass::kUnsupportedDtype,
        compat::OpClass::kConstraintViolated, compat::OpClass::kUnknownMapping}) {
    auto o = r.occurrences_by_class.find(c);
    auto p = r.pairs_by_class.find(c);
    by_class[compat::to_string(c)] = o == r.occurrences_by_class.end() ? 0 : o->second;
    pairs_by_class[compat::to_string(c)] = p == r.pairs_by_class.end() ? 0 : p->second;
  }
  json pairs = json::array();
  for (const auto& p : r.pairs) pairs.push_back(pair_json(p));
  return {{"file", r.file},
          {"kind", compat::to_string(r.kind)},
          {"detail", r.detail},
          {"notes", r.notes},
          {"total_occurrences", r.total_occurrences},
          {"no_kernel_occurrences", r.no_kernel_occurrences},
          {"composite_calls", r.composite_calls},
          {"occurrences_by_class", by_class},
          {"pairs_by_class", pairs_by_class},
          {"total_self_us", r.total_self_us},
          {"unsupported_self_us", r.unsupported_self_us},
          {"pairs", pairs}};
}

const compat::OpMatrix& choose_matrix(const po::variables_map& vm, compat::OpMatrix& from_file) {
  bool backend = vm.count("backend"), matrix = vm.count("matrix");
  if (backend == matrix) {
    std::string names;
    for (const auto& n : compat::builtin_matrix_names()) names += (names.empty() ? "" : ", ") + n;
    throw compat::InputError(
        "command line", 0, 0, "",
        "give exactly one of --backend NAME (built in: " + names + ") or --matrix FILE");
  }
  if (backend) return compat::builtin_matrix(vm["backend"].as<std::string>());
  from_file = compat::load_op_matrix_file(vm["matrix"].as<std::string>());
  return from_file;
}

int list_backends() {
  for (const auto& name : compat::builtin_matrix_names()) {
    const auto& m = compat::builtin_matrix(name);
    std::cout << name << (m.example ? "  (EXAMPLE, edit before use)" : "") << "  "
              << m.entries.size() << " ops  " << m.description << "\n";
  }
  return 0;
}

int run(const po::variables_map& vm) {
  if (vm["list-backends"].as<bool>()) return list_backends();
  check_output_options(vm);
  if (vm.count("csv") && vm["csv"].as<std::string>() == "-")
    for (const char* o : {"json", "junit", "ctrf"})
      if (vm.count(o) && vm[o].as<std::string>() == "-")
        throw compat::InputError("command line", 0, 0, "--csv",
                                 std::string("--csv and --") + o + " cannot both write to stdout");
  if (vm.count("csv")) check_output_path("--csv", vm["csv"].as<std::string>());
  if (!vm.count("model"))
    throw compat::InputError("command line", 0, 0, "",
                             "give at least one model: an .onnx file, a torch.profiler trace "
                             "(.json) or an op list (.yaml, .txt)");
  compat::OpMatrix file_matrix;
  const compat::OpMatrix& matrix = choose_matrix(vm, file_matrix);
  compat::OpMapping file_mapping;
  if (vm.count("mapping"))
    file_mapping = compat::parse_op_mapping(compat::read_text_file(vm["mapping"].as<std::string>()),
                                            vm["mapping"].as<std::string>());
  const compat::OpMapping& mapping = vm.count("mapping") ? file_mapping : compat::builtin_mapping();
  auto format = compat::source_format_from_string(vm["format"].as<std::string>());
  const auto models = vm["model"].as<std::vector<std::string>>();

  reports::Report report;
  report.tool_version = tool_version();
  report.command = "ops";
  report.hostname = local_hostname();
  report.profile = "backend " + matrix.backend + " (" + matrix.source + ")" +
                   (matrix.example ? " EXAMPLE matrix: edit before relying on it" : "");
  report.started_unix_ms = unix_ms_now();
  json files = json::array();
  std::optional<ReadDeadline> deadline(std::in_place, "ops", timeout_from(vm));
  for (const auto& path : models) {
    deadline->reading(path);
    compat::OpCheckResult r =
        compat::check_inventory(matrix, mapping, compat::read_op_source(path, format));
    auto findings = probes::op_findings(r, matrix, models.size() > 1);
    report.findings.insert(report.findings.end(), findings.begin(), findings.end());
    files.push_back(file_json(r));
  }
  deadline.reset();
  report.finished_unix_ms = unix_ms_now();
  report.extra_json["ops"] = json{
      {"backend", matrix.backend},
      {"matrix", matrix.source},
      {"example_matrix", matrix.example},
      {"mapping", mapping.source},
      {"files", files}}.dump();
  std::vector<ExtraOutput> extra;
  if (vm.count("csv"))
    extra.push_back({vm["csv"].as<std::string>(), reports::render_migration_csv(report)});
  emit_report(report, vm, false, extra);
  return reports::exit_code_for(report.findings, vm["strict"].as<bool>());
}

}  // namespace

Command ops() {
  Command c;
  c.name = "ops";
  c.summary =
      "operator compatibility of models (ONNX, torch.profiler traces, op lists) with a backend";
  c.usage = "hnprecheck ops MODEL... (--backend NAME | --matrix FILE) [--csv PATH] [options]";
  c.details =
      "Reads every operator a model uses, with its dtype, and checks it against the backend's\n"
      "operator matrix: one finding per distinct (op, dtype) pair, classed supported,\n"
      "unsupported-op (\"unsupported operator type X\"), unsupported-dtype, constraint-violated\n"
      "or unknown-mapping, with where it occurs and the replacement hint; then a summary per\n"
      "file with the share of ops (and, for traces, of cpu_op self time) that is unsupported.\n"
      "Traces count innermost aten:: calls only; a composite (aten::linear around aten::t and\n"
      "aten::addmm) that the backend lacks passes as supported-by-decomposition when every op\n"
      "nested in it runs, and otherwise fails naming the nested op that does not.\n"
      "MODEL is an ONNX file (subgraphs of If/Loop/Scan included), a torch.profiler or\n"
      "torch_npu Chrome-trace JSON (aten:: cpu_op events; dtypes need record_shapes=True), or\n"
      "an op list (YAML, or text lines `OP [DTYPE] [COUNT]`).\n"
      "--csv writes File, Start Line, End Line, OP, Tips rows for every op that is not\n"
      "supported: lines are the node's position in the model (depth-first, 1-based), the\n"
      "first and last trace event index, or the op list's line.\n"
      "Exit 1 when any op is unsupported (unknown mappings only warn; --strict fails them).";
  c.add_options = [](po::options_description& d, po::positional_options_description& p) {
    d.add_options()("model", po::value<std::vector<std::string>>()->value_name("MODEL"),
                    "model files")(
        "backend", po::value<std::string>()->value_name("NAME"),
        "a built-in matrix: reference-cpu, example-npu, example-gpu (--list-backends)")(
        "matrix", po::value<std::string>()->value_name("FILE"), "an operator matrix file (YAML)")(
        "mapping", po::value<std::string>()->value_name("FILE"),
        "a mapping table (YAML) instead of the built-in profiles/ops/mapping.yaml")(
        "format", po::value<std::string>()->default_value("auto")->value_name("FMT"),
        "auto, onnx, trace, yaml or text (auto: by extension, then by content)")(
        "csv", po::value<std::string>()->value_name("PATH"),
        "write the migration-analysis CSV ('-' = stdout)")("list-backends", po::bool_switch(),
                                                           "list the built-in matrices and exit");
    add_report_options(d);
    add_timeout_option(d, 300,
                       "deadline for reading the models; past it the run ends with exit 3 and "
                       "writes nothing");
    p.add("model", -1);
  };
  c.run = run;
  return c;
}

}  // namespace hn::preflight::commands
