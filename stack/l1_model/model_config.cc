#include "stack/l1_model/model_config.h"

namespace hn::stack::model {

namespace {

void positive(const char* field, int v) {
  if (v < 1) throw ConfigError(field, "must be at least 1, got " + std::to_string(v));
}

void divides(const std::string& field, int whole, const std::string& what, int part,
             const std::string& where = "") {
  if (part > 0 && whole % part == 0) return;
  throw ConfigError(field, std::to_string(whole) + " is not divisible by " + what + "=" +
                               std::to_string(part) + where);
}

}  // namespace

void ModelConfig::validate() const {
  positive("vocab", vocab);
  positive("hidden", hidden);
  positive("heads", heads);
  positive("ffn", ffn);
  positive("layers", layers);
  positive("seq", seq);
  positive("batch", batch);
  positive("micro_batches", micro_batches);
  if (experts < 0)
    throw ConfigError("experts", "must be 0 (dense) or more, got " + std::to_string(experts));
  divides("hidden", hidden, "heads", heads);
  if (dtype != op::DType::kF32 && dtype != op::DType::kF64)
    throw ConfigError("dtype",
                      "the model trains in f32 or f64, not " + std::string(op::to_string(dtype)));
  // Sizes that would make one step take minutes on a CPU are a typo here.
  const long long params =
      1LL * vocab * hidden * 2 +
      1LL * layers * (4LL * hidden * hidden + 2LL * hidden * ffn * (experts ? experts : 1));
  if (params > 64LL << 20)
    throw ConfigError("size", std::to_string(params) +
                                  " parameters is beyond this check's 67108864 (a CPU model)");
}

void ModelConfig::check_layout(const framework::Layout& l) const {
  validate();
  l.validate();
  const std::string where = " (layout " + l.to_string() + ")";
  divides("layers", layers, "pp", l.pp, where);
  divides("heads", heads, "tp", l.tp, where);
  divides("ffn", ffn, "tp", l.tp, where);
  divides("vocab", vocab, "tp", l.tp, where);
  if (l.ep > 1 && experts == 0)
    throw ConfigError("experts", "ep=" + std::to_string(l.ep) +
                                     " needs a mixture of experts (experts > 0)" + where);
  if (experts > 0) divides("experts", experts, "ep", l.ep, where);
  divides("batch", batch, "dp x micro_batches", l.dp * micro_batches, where);
  const int tokens = micro_batch_size(l.dp) * seq;
  if (tokens % l.tp != 0)
    throw ConfigError("seq", "a micro-batch holds " + std::to_string(tokens) +
                                 " tokens, not divisible by tp=" + std::to_string(l.tp) +
                                 " (sequence parallelism splits them)" + where);
}

}  // namespace hn::stack::model
