// Real models and traces (tests/corpus/models/SOURCES.tsv): the ONNX "light"
// models of onnx/onnx, a small MNIST export, and a torch.profiler trace of a
// ResNet-50 training run as the profiler writes it (gzipped). Each is read by
// content, classified against a matrix, and the coverage by class printed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "compat/builtin_ops.h"
#include "compat/op_check.h"
#include "compat/op_list_reader.h"
#include "compat/op_sources.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace hn::compat;

namespace {

const fs::path kDir = fs::path(HN_SOURCE_DIR) / "tests/corpus/models";

std::vector<std::string> model_files() {
  std::vector<std::string> out;
  std::ifstream in(kDir / "SOURCES.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line.substr(0, line.find('\t')));
  }
  return out;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("ops corpus: every real model and trace is read and classified, coverage by class") {
  auto files = model_files();
  REQUIRE(files.size() >= 10);
  const OpMapping& mapping = builtin_mapping();
  for (const char* backend : {"example-npu", "reference-cpu"}) {
    const OpMatrix& matrix = builtin_matrix(backend);
    std::map<std::string, std::int64_t> by_class;
    std::int64_t counted = 0, no_kernel = 0;
    for (const auto& f : files) {
      INFO(f << " on " << backend);
      OpInventory inv;
      REQUIRE_NOTHROW(inv = read_op_source((kDir / f).string()));
      CHECK(!inv.ops.empty());
      OpCheckResult r = check_inventory(matrix, mapping, inv);
      for (const auto& p : r.pairs) {
        // Ops no backend runs as kernels never count against support.
        if (p.op == "Constant" || p.op == "Identity" || p.op == "aten::as_strided" ||
            p.op == "aten::empty_strided" || p.op == "aten::empty")
          CHECK(p.cls == OpClass::kNoKernel);
      }
      for (const auto& [c, n] : r.occurrences_by_class) by_class[to_string(c)] += n;
      counted += r.total_occurrences;
      no_kernel += r.no_kernel_occurrences;
    }
    std::cout << "ops corpus on " << backend << ": " << files.size() << " files, " << counted
              << " counted op occurrences (+" << no_kernel << " no-kernel);";
    for (const auto& [c, n] : by_class)
      if (c != std::string("no-kernel"))
        std::cout << " " << c << " " << n << " ("
                  << (counted ? 100 * n / std::max<std::int64_t>(counted, 1) : 0) << "%)";
    std::cout << "\n";
  }
}

TEST_CASE("ops: a gzipped trace is read, and formats are told apart by content") {
  const fs::path gz = kDir / "resnet50_worker0.pt.trace.json.gz";
  OpInventory a = read_op_source(gz.string());
  CHECK(a.kind == InventoryKind::kTrace);
  // The same bytes under a misleading name are still a trace.
  hn::test::TempDir dir;
  std::string renamed = dir.path() + "/model.onnx";
  fs::copy_file(gz, renamed);
  OpInventory b = read_op_source(renamed);
  CHECK(b.kind == InventoryKind::kTrace);
  CHECK(b.ops.size() == a.ops.size());
  // A real ONNX model under a .json name is still ONNX.
  std::string onnx_as_json = dir.path() + "/model.json";
  fs::copy_file(kDir / "mnist-sm.onnx", onnx_as_json);
  CHECK(read_op_source(onnx_as_json).kind == InventoryKind::kOnnx);
  // A truncated gzip file is bad input (exit 2), naming the file.
  std::string cut = bytes_of(gz).substr(0, 5000);
  std::string truncated = dir.write("cut.pt.trace.json.gz", cut);
  CHECK_THROWS_WITH(read_op_source(truncated),
                    Catch::Contains("cut.pt.trace.json.gz") && Catch::Contains("gzip"));
}

TEST_CASE("ops: overload names map, framework-internal ops are no-kernel, the rest is mapped") {
  const OpMapping& mapping = builtin_mapping();
  OpInventory inv = read_op_list_text(
      "aten::add.Tensor f32\naten::mul.Scalar f32\naten::as_strided f32\naten::empty_strided f32\n"
      "aten::result_type f32\naten::fill_ f32\naten::fill_.Scalar f32\nConstant f32\n",
      "ops.txt");
  OpCheckResult r = check_inventory(builtin_matrix("example-npu"), mapping, inv);
  std::map<std::string, OpClass> cls;
  for (const auto& p : r.pairs) cls[p.op] = p.cls;
  CHECK(cls["aten::add.Tensor"] == OpClass::kSupported);
  CHECK(cls["aten::mul.Scalar"] == OpClass::kSupported);
  CHECK(cls["aten::as_strided"] == OpClass::kNoKernel);
  CHECK(cls["aten::empty_strided"] == OpClass::kNoKernel);
  CHECK(cls["aten::result_type"] == OpClass::kNoKernel);
  CHECK(cls["aten::fill_"] == OpClass::kSupported);
  CHECK(cls["aten::fill_.Scalar"] == OpClass::kSupported);
  CHECK(cls["Constant"] == OpClass::kNoKernel);
  CHECK(r.total_occurrences == 4);  // add, mul, fill_ twice; the no-kernel ones are not counted
  CHECK(r.no_kernel_occurrences == 4);
}
