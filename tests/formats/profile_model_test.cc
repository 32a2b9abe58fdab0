#include "formats/profile_model.h"

#include <catch2/catch.hpp>

#include "compat/input_error.h"
#include "formats/profile.h"

using hn::compat::InputError;
using hn::formats::parse_profile;

TEST_CASE("profile model section: every key, read as written") {
  auto p = parse_profile(R"(version: 1
model:
  layout: tp=2,pp=2,dp=2
  steps: 12
  seed: 7
  size: {vocab: 32, hidden: 16, heads: 2, ffn: 32, layers: 4, seq: 8, batch: 8,
         micro_batches: 4, experts: 2, dtype: f64}
  optimizer: {kind: sgd, lr: 0.05, momentum: 0.5}
  backend: example-npu
  checkpoint: {dir: /mnt/shared/ckpt, timeout_s: 4}
  replica_check_every: 3
  timeout_s: 60
)",
                         "/etc/hn/p.yaml");
  REQUIRE(p.model.has_value());
  const auto& m = *p.model;
  REQUIRE(m.layout.has_value());
  CHECK(m.layout->tp == 2);
  CHECK(m.layout->pp == 2);
  CHECK(m.layout->dp == 2);
  CHECK(m.layout->ep == 1);
  CHECK(m.steps == 12);
  CHECK(m.seed == 7);
  CHECK(m.size.vocab == 32);
  CHECK(m.size.layers == 4);
  CHECK(m.size.micro_batches == 4);
  CHECK(m.size.experts == 2);
  CHECK(m.size.dtype == hn::stack::op::DType::kF64);
  CHECK(m.optimizer.kind == hn::stack::framework::OptimizerKind::kSgd);
  CHECK(m.optimizer.lr == 0.05);
  CHECK(m.optimizer.momentum == 0.5);
  CHECK(m.backend == "example-npu");
  CHECK(m.matrix_file.empty());
  CHECK(m.checkpoint_dir == "/mnt/shared/ckpt");
  CHECK(m.checkpoint_timeout_s == 4);
  CHECK(m.replica_check_every == 3);
  CHECK(m.timeout_s == 60);
  CHECK(m.line == 3);
}

TEST_CASE("profile model section: defaults, a map layout and a matrix file") {
  auto none = parse_profile("version: 1\n", "p.yaml");
  CHECK_FALSE(none.model.has_value());
  auto p = parse_profile("version: 1\nmodel:\n  layout: {dp: 4, ep: 2}\n  matrix: ops/npu.yaml\n",
                         "/etc/hn/cluster.yaml");
  REQUIRE(p.model);
  CHECK(p.model->layout->dp == 4);
  CHECK(p.model->layout->ep == 2);
  CHECK(p.model->matrix_file == "/etc/hn/ops/npu.yaml");  // relative to the profile
  CHECK(p.model->backend.empty());
  CHECK(p.model->steps == 20);
  CHECK(p.model->size.vocab == hn::stack::model::ModelConfig{}.vocab);
  CHECK(p.model->checkpoint_dir.empty());
  auto no_layout = parse_profile("version: 1\nmodel: {steps: 3}\n", "p.yaml");
  CHECK_FALSE(no_layout.model->layout.has_value());
}

TEST_CASE("profile model section: bad values name file, line and field") {
  struct Case {
    const char* text;
    int line;
    const char* needle;
  };
  const Case cases[] = {
      {"version: 1\nmodel:\n  layot: tp=2\n", 3, "unknown key 'layot'"},
      {"version: 1\nmodel:\n  layout: tp=2,cp=2\n", 3,
       "model.layout: layout 'tp=2,cp=2': unknown key 'cp'"},
      {"version: 1\nmodel:\n  layout: dp=4,ep=3\n", 3, "ep=3 must divide dp=4"},
      {"version: 1\nmodel:\n  layout: {tp: 2, xp: 1}\n", 3, "unknown key 'xp'"},
      {"version: 1\nmodel:\n  layout: tp=0\n", 3, "tp=0 is not a whole number"},
      {"version: 1\nmodel:\n  steps: 0\n", 3, "model.steps: value 0 is out of range"},
      {"version: 1\nmodel:\n  size: {hidden: 30, heads: 4}\n", 3,
       "model.size.hidden: 30 is not divisible by heads=4"},
      {"version: 1\nmodel:\n  size: {dtype: f16}\n", 3, "expected f32 or f64, got 'f16'"},
      {"version: 1\nmodel:\n  size: {vocab: 100000, hidden: 4096, heads: 4}\n", 3, "model.size: "},
      {"version: 1\nmodel:\n  size: {widht: 3}\n", 3, "unknown key 'widht'"},
      {"version: 1\nmodel:\n  optimizer: {kind: lamb}\n", 3, "unknown optimizer 'lamb'"},
      {"version: 1\nmodel:\n  optimizer: {lr: 0}\n", 3, "model.optimizer.lr: must be in (0, 10)"},
      {"version: 1\nmodel:\n  backend: tpu-v9\n", 3, "unknown backend 'tpu-v9' (built in: "},
      {"version: 1\nmodel:\n  backend: reference-cpu\n  matrix: m.yaml\n", 4, "not both"},
      {"version: 1\nmodel:\n  checkpoint: {dir: ckpt}\n", 3,
       "model.checkpoint.dir: must be an absolute"},
      {"version: 1\nmodel:\n  checkpoint: {timeout_s: -1}\n", 3, "model.checkpoint.timeout_s"},
      {"version: 1\nmodel:\n  timeout_s: 0\n", 3, "model.timeout_s: must be in (0, 86400]"},
      // The size must fit the layout: named with both numbers.
      {"version: 1\nmodel:\n  layout: pp=4\n  size: {layers: 2}\n", 4,
       "model.size.layers: 2 is not divisible by pp=4 (layout tp=1,pp=4,dp=1)"},
      {"version: 1\nmodel:\n  layout: tp=3\n", 3, "is not divisible by tp=3"},
      {"version: 1\nmodel:\n  layout: dp=2,ep=2\n  size: {experts: 0}\n", 4,
       "ep=2 needs a mixture of experts"},
      {"version: 1\nmodel:\n  layout: dp=2,ep=2\n  size: {experts: 3}\n", 4,
       "model.size.experts: 3 is not divisible by ep=2"},
      {"version: 1\nmodel:\n  layout: dp=32\n", 3,
       "model.size.batch: 16 is not divisible by dp x micro_batches=64"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    try {
      parse_profile(c.text, "p.yaml");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.file() == "p.yaml");
      CHECK(e.line() == c.line);
      CHECK_THAT(std::string(e.what()), Catch::Contains(c.needle));
    }
  }
}

TEST_CASE("profile model section: group planes name declared planes") {
  auto p = parse_profile(R"(version: 1
planes:
  - {name: hccs, type: parameter, subnet: 10.1.0.0/24}
  - {name: roce, type: parameter, subnet: 10.2.0.0/24}
model:
  planes: {tp: hccs, dp: roce}
)",
                         "p.yaml");
  CHECK(p.model->group_planes ==
        std::map<std::string, std::string>{{"tp", "hccs"}, {"dp", "roce"}});
  try {
    parse_profile("version: 1\nmodel:\n  planes: {tp: nowhere}\n", "p.yaml");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.line() == 3);
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("model.planes.tp: plane 'nowhere' is not declared under planes"));
  }
  CHECK_THROWS_WITH(parse_profile("version: 1\nmodel:\n  planes: {mp: x}\n", "p.yaml"),
                    Catch::Contains("unknown key 'mp'"));
}
