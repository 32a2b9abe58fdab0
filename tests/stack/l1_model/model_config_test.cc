#include "stack/l1_model/model_config.h"

#include <catch2/catch.hpp>

using hn::stack::framework::parse_layout;
using hn::stack::model::ConfigError;
using hn::stack::model::ModelConfig;

TEST_CASE("model config: the default fits every layout of the equivalence matrix") {
  ModelConfig c;
  for (const char* l : {"dp=1", "dp=2", "tp=2", "pp=2", "dp=2,ep=2", "tp=2,pp=2", "tp=2,dp=2",
                        "dp=4,ep=2", "tp=2,pp=2,dp=2", "dp=8", "tp=2,dp=4,ep=4"}) {
    INFO(l);
    CHECK_NOTHROW(c.check_layout(parse_layout(l)));
  }
  CHECK(c.micro_batch_size(2) == 4);
}

TEST_CASE("model config: what does not fit names the field and the numbers") {
  auto error = [](const ModelConfig& c, const char* layout) {
    try {
      c.check_layout(parse_layout(layout));
    } catch (const ConfigError& e) {
      return e.field() + " | " + e.what();
    }
    return std::string("accepted");
  };
  ModelConfig c;
  CHECK_THAT(error(c, "pp=4"), Catch::Contains("layers | layers: 2 is not divisible by pp=4"));
  CHECK_THAT(error(c, "tp=8"), Catch::Contains("heads: 4 is not divisible by tp=8"));
  CHECK_THAT(error(c, "dp=2,ep=2,tp=1,pp=1"), Catch::Equals("accepted"));
  ModelConfig dense = c;
  dense.experts = 0;
  CHECK_THAT(error(dense, "dp=2,ep=2"), Catch::Contains("ep=2 needs a mixture of experts"));
  ModelConfig odd = c;
  odd.seq = 3;
  odd.batch = 2;
  odd.micro_batches = 1;
  CHECK_THAT(error(odd, "tp=2,dp=2"),
             Catch::Contains("a micro-batch holds 3 tokens, not divisible by tp=2"));
  ModelConfig bad = c;
  bad.dtype = hn::stack::op::DType::kBF16;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("f32 or f64, not bf16"));
  bad = c;
  bad.micro_batches = 0;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("micro_batches: must be at least 1, got 0"));
}
