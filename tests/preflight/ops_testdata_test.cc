// `hnprecheck ops` over every model Debian's libonnx-testdata ships (1072):
// no crash, every file ends in exit 0 or 1, and, since one process per
// directory (932 models in node/) has only one exit code, the JSON report is
// checked file by file: each model has exactly one clean verdict that agrees
// with its own counts, and nothing in the run is an internal error.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support/process.h"
#include "tests/support/skip.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::int64_t class_count(const json& by_class, std::initializer_list<const char*> names) {
  std::int64_t n = 0;
  for (const char* c : names) n += by_class.at(c).get<std::int64_t>();
  return n;
}

// The verdict a file's own counts call for: FAIL when any pair cannot run,
// WARN for an unknown mapping or an empty file, else PASS.
std::string expected_summary(const json& file) {
  if (file["total_occurrences"] == 0 && file.value("no_kernel_occurrences", 0) == 0)
    return "OP-MODEL-EMPTY WARN";
  const json& pairs = file["pairs_by_class"];
  if (class_count(pairs, {"unsupported-op", "unsupported-dtype", "constraint-violated"}) > 0)
    return "OP-MODEL-SUMMARY FAIL";
  if (class_count(pairs, {"unknown-mapping"}) > 0) return "OP-MODEL-SUMMARY WARN";
  return "OP-MODEL-SUMMARY PASS";
}

// Checks one batch run's report model by model; returns how many models
// ended in FAIL (for the exit code).
std::size_t check_per_file(const json& report, const std::vector<std::string>& models) {
  const std::set<std::string> wanted(models.begin(), models.end());
  // Per file: its summary finding, and the worst status of its pair findings.
  std::map<std::string, std::vector<std::string>> summaries;
  std::map<std::string, std::string> worst_pair;
  for (const auto& f : report["findings"]) {
    const std::string code = f["code"], status = f["status"], entity = f["entity"];
    INFO(code << " " << status << " " << entity << ": " << f["message"]);
    // ERROR is a probe or reader that broke; SKIP would mean a model was not
    // checked. Neither may happen to any model.
    CHECK((status == "PASS" || status == "WARN" || status == "FAIL"));
    CHECK(code.rfind("OP-", 0) == 0);
    if (code == "OP-MODEL-SUMMARY" || code == "OP-MODEL-EMPTY") {
      summaries[entity].push_back(code + " " + status);
      continue;
    }
    // Several inputs: pair entities are "FILE: op dtype".
    const std::string file = entity.substr(0, entity.find(": "));
    CHECK(wanted.count(file) == 1);
    std::string& w = worst_pair[file];
    if (status == "FAIL" || (status == "WARN" && w != "FAIL") || w.empty()) w = status;
  }
  const json& files = report["extra"]["ops"]["files"];
  REQUIRE(files.size() == models.size());
  std::size_t failed = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const json& file = files[i];
    const std::string path = file["file"];
    INFO(path << " " << file.dump().substr(0, 600));
    CHECK(path == models[i]);  // in the order given, each once
    CHECK(file["kind"] == "onnx");
    // The counts add up: every occurrence and pair is in exactly one class.
    std::int64_t occ = 0, pairs = 0;
    // No-kernel ops (constants, identities, shape queries) have a class of
    // their own but are not counted in total_occurrences.
    for (const auto& [c, n] : file["occurrences_by_class"].items())
      if (c != "no-kernel") occ += n.get<std::int64_t>();
    CHECK(file["occurrences_by_class"].value("no-kernel", std::int64_t{0}) ==
          file.value("no_kernel_occurrences", std::int64_t{0}));
    for (const auto& [c, n] : file["pairs_by_class"].items()) pairs += n.get<std::int64_t>();
    CHECK(occ == file["total_occurrences"].get<std::int64_t>());
    CHECK(pairs == static_cast<std::int64_t>(file["pairs"].size()));
    // Exactly one verdict, the one the counts call for, and pair findings
    // that agree with it (a FAIL pair under a PASS summary would be a bug).
    const auto& verdicts = summaries[path];
    REQUIRE(verdicts.size() == 1);
    CHECK(verdicts[0] == expected_summary(file));
    const bool fail = verdicts[0] == "OP-MODEL-SUMMARY FAIL";
    CHECK((worst_pair[path] == "FAIL") == fail);
    failed += fail;
  }
  CHECK(summaries.size() == models.size());  // no summary for a file not given
  return failed;
}

}  // namespace

TEST_CASE("ops over all of libonnx-testdata: one clean verdict per model, in one run per dir") {
  const std::string root = "/usr/share/libonnx-testdata/data";
  if (!fs::exists(root)) hn::test::skip("libonnx-testdata is not installed");
  std::size_t total = 0;
  for (const char* dir : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    std::vector<std::string> args = {HN_BINARY, "ops", "--backend", "reference-cpu",
                                     "--json",  "-",   "--quiet"};
    std::vector<std::string> models;
    for (const auto& e : fs::directory_iterator(root + "/" + dir))
      if (fs::exists(e.path() / "model.onnx")) models.push_back((e.path() / "model.onnx").string());
    args.insert(args.end(), models.begin(), models.end());
    auto r = hn::test::run_process(args, 120);
    INFO(dir << ": " << r.err.substr(0, 2000));
    REQUIRE((r.exit_code == 0 || r.exit_code == 1));
    const json report = json::parse(r.out);
    std::size_t failed = check_per_file(report, models);
    // The one exit code is the OR of the per-model verdicts.
    CHECK(r.exit_code == (failed > 0 ? 1 : 0));
    total += models.size();
  }
  CHECK(total == 1072);
}

TEST_CASE("ops over each model on its own: exit 0 or 1 (one process per model, example-npu)") {
  const std::string root = "/usr/share/libonnx-testdata/data";
  if (!fs::exists(root)) hn::test::skip("libonnx-testdata is not installed");
  // A sample across the directories, one process each: a crash in one model
  // cannot hide behind another's output.
  int n = 0;
  for (const char* dir : {"pytorch-converted", "pytorch-operator", "simple"})
    for (const auto& e : fs::directory_iterator(root + "/" + dir)) {
      if (!fs::exists(e.path() / "model.onnx")) continue;
      auto r = hn::test::run_process({HN_BINARY, "ops", (e.path() / "model.onnx").string(),
                                      "--backend", "example-npu", "--quiet"},
                                     60);
      INFO(e.path().string() << ": " << r.err);
      CHECK((r.exit_code == 0 || r.exit_code == 1));
      ++n;
    }
  CHECK(n == 140);
}
