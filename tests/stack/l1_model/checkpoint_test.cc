// Checkpoint format and files: shards round-trip, a truncated or foreign
// shard is refused, the manifest is strict, writes are atomic and durable
// (no partial file under the final name), and the directory is removed.
#include "stack/l1_model/checkpoint.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/temp_dir.h"

using namespace hn::stack;
using model::CheckpointError;

namespace {

model::TrainingState sample_state() {
  model::TrainingState s;
  s.step = 7;
  s.optimizer_steps = 7;
  s.tensors.push_back({"a", op::Tensor::from_values(op::DType::kF32, {2, 2}, {1, 2, 3, 4})});
  s.tensors.push_back({"a#exp_avg", op::Tensor::from_values(op::DType::kF64, {3}, {0.5, -1, 2})});
  return s;
}

const physical::StepFn kNoStep = [](std::string_view) {};

}  // namespace

TEST_CASE("checkpoint: a shard round-trips bit for bit") {
  auto bytes = model::encode_shard(sample_state(), 3, "tp=2,pp=1,dp=2");
  auto back = model::decode_shard(bytes, 3, "tp=2,pp=1,dp=2");
  CHECK(back.step == 7);
  CHECK(back.optimizer_steps == 7);
  REQUIRE(back.tensors.size() == 2);
  CHECK(back.tensors[0].name == "a");
  CHECK(back.tensors[0].value.to_f64() == std::vector<double>{1, 2, 3, 4});
  CHECK(back.tensors[1].value.dtype() == op::DType::kF64);
  CHECK(back.tensors[1].value.shape() == op::Shape{3});
  CHECK(model::sha256_hex(bytes).size() == 64);
  CHECK(model::sha256_hex({}) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("checkpoint: truncated, foreign or misplaced shards are refused by name") {
  auto bytes = model::encode_shard(sample_state(), 1, "dp=2");
  CHECK_THROWS_WITH(model::decode_shard(bytes, 0, "dp=2"),
                    Catch::Contains("shard of rank 1 read by rank 0"));
  CHECK_THROWS_WITH(model::decode_shard(bytes, 1, "tp=2"),
                    Catch::Contains("written with layout dp=2, resumed with tp=2"));
  auto cut = bytes;
  cut.resize(cut.size() - 3);
  CHECK_THROWS_WITH(model::decode_shard(cut, 1, "dp=2"), Catch::Contains("is truncated"));
  CHECK_THROWS_WITH(model::decode_shard(std::vector<std::byte>(8), 1, "dp=2"),
                    Catch::Contains("bad magic"));
  auto header = bytes;
  header[20] = std::byte{'#'};
  CHECK_THROWS_AS(model::decode_shard(header, 1, "dp=2"), CheckpointError);
}

TEST_CASE("checkpoint: the manifest round-trips and is strict") {
  model::Manifest m{
      4, "dp=2", 2, {{0, "shard-00000.bin", 10, "aa"}, {1, "shard-00001.bin", 11, "bb"}}};
  auto back = model::parse_manifest(model::manifest_json(m), "M");
  CHECK(back.step == 4);
  CHECK(back.shards.at(1).sha256 == "bb");
  CHECK(back.shards.at(1).bytes == 11);
  CHECK_THROWS_WITH(model::parse_manifest("{", "M"), Catch::StartsWith("M: malformed manifest"));
  m.world = 3;
  CHECK_THROWS_WITH(model::parse_manifest(model::manifest_json(m), "M"),
                    Catch::Contains("lists 2 shards for 3 ranks"));
  m.world = 2;
  std::swap(m.shards[0], m.shards[1]);
  CHECK_THROWS_WITH(model::parse_manifest(model::manifest_json(m), "M"),
                    Catch::Contains("out of order"));
  CHECK_THROWS_WITH(model::parse_manifest(R"({"format":"x","version":1})", "M"),
                    Catch::Contains("not a version 1 hnprecheck checkpoint manifest"));
}

TEST_CASE("checkpoint: durable writes, reads, the steps they name, and removal") {
  hn::test::TempDir tmp;
  const std::string dir = tmp.path() + "/a/b/step-3";
  std::vector<std::string> steps;
  physical::StepFn record = [&](std::string_view s) { steps.emplace_back(s); };
  model::make_dirs(dir, record);
  std::vector<std::byte> data(100000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 7);
  model::write_durable(dir + "/shard-00000.bin", data, record);
  CHECK(model::read_all(dir + "/shard-00000.bin", 1 << 20, kNoStep) == data);
  // Every blocking call was announced first, fsync of the file and the directory among them.
  CHECK(std::find(steps.begin(), steps.end(), "fsync " + dir) != steps.end());
  CHECK(std::count_if(steps.begin(), steps.end(),
                      [](const std::string& s) { return s.rfind("fsync ", 0) == 0; }) == 2);
  CHECK_THROWS_AS(model::read_all(dir + "/shard-00000.bin", 10, kNoStep), physical::IoError);
  try {
    model::read_all(dir + "/missing", 10, kNoStep);
    FAIL("read a missing file");
  } catch (const physical::IoError& e) {
    CHECK(e.op() == "open");
    CHECK(physical::errno_name(e.error()) == "ENOENT");
  }
  // A leftover of an interrupted write is removed with the rest.
  std::ofstream(dir + "/shard-00001.bin.tmp-99") << "partial";
  model::remove_checkpoint(dir, kNoStep);
  struct stat st {};
  CHECK(stat(dir.c_str(), &st) != 0);
  CHECK_NOTHROW(model::remove_checkpoint(dir, kNoStep));  // already gone
}
