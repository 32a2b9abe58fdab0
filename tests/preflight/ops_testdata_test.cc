// `hnprecheck ops` over every model Debian's libonnx-testdata ships (1072):
// no crash, and every file ends in exit 0 or 1. One process per directory
// keeps it fast; the JSON report is checked to cover every file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"
#include "tests/support/skip.h"

namespace fs = std::filesystem;

TEST_CASE("ops over all of libonnx-testdata: exit 0 or 1, a summary for every model") {
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
    auto j = nlohmann::json::parse(r.out);
    std::size_t summaries = 0;
    for (const auto& f : j["findings"]) summaries += f["code"] == "OP-MODEL-SUMMARY";
    CHECK(summaries == models.size());
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
