#include "migrate/checkpoint_estimate.h"

#include <cmath>
#include <cstdio>

namespace hn::migrate {

namespace {

// A positive whole number the script states, or nullopt (absent, dynamic).
std::optional<double> number(const Discovery& d, const char* key) {
  const Found* f = d.last(key);
  if (!f || f->dynamic || f->value.empty() || f->value.size() > 12 ||
      f->value.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  double v = std::stod(f->value);
  return v > 0 ? std::optional<double>(v) : std::nullopt;
}

bool on(const Discovery& d, const char* key) {
  return d.last(key) != nullptr;
}

std::string text(double v, const char* format = "%.0f") {
  char b[64];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

}  // namespace

std::optional<CheckpointEstimate> estimate_checkpoint(const Discovery& d) {
  auto layers = number(d, "num_layers"), h = number(d, "hidden_size");
  if (!layers || !h) return std::nullopt;
  const bool swiglu = on(d, "swiglu");
  // Megatron's defaults: 4h, or with SwiGLU 2/3 of it rounded down to 64.
  double ffn =
      number(d, "ffn_hidden_size").value_or(swiglu ? std::floor(4 * *h * 2 / 3 / 64) * 64 : 4 * *h);
  double kv = *h;
  auto heads = number(d, "num_attention_heads"), groups = number(d, "num_query_groups");
  if (on(d, "gqa") && heads && groups) kv = *h / *heads * *groups;
  const double matrices = swiglu ? 3 : 2;
  double mlp = matrices * *h * ffn;
  std::string shape = text(*layers) + " layers, hidden " + text(*h) + ", ffn " + text(ffn);
  if (auto experts = number(d, "num_experts")) {
    double moe_ffn = number(d, "moe_ffn_hidden_size").value_or(ffn);
    mlp = *experts * matrices * *h * moe_ffn + *h * *experts;
    shape += ", " + text(*experts) + " experts of ffn " + text(moe_ffn);
  }
  const double per_layer = 2 * *h * *h + 2 * *h * kv + mlp + 4 * *h;

  // The vocabulary: stated, GPT-2's BPE padded as Megatron pads it, or the
  // largest in common use.
  double vocab = 0;
  std::string vocab_note;
  if (auto v = number(d, "vocab_size")) {
    vocab = *v;
  } else if (const Found* t = d.last("tokenizer_type"); t && t->value == "GPT2BPETokenizer") {
    double multiple = number(d, "vocab_divisible_by").value_or(128) * number(d, "tp").value_or(1);
    vocab = std::ceil(50257 / multiple) * multiple;
  } else {
    vocab = 256000;
    vocab_note = ", vocabulary not stated: taken as 256,000, so this errs large";
  }
  const double embeddings = vocab * *h * (on(d, "untie_embeddings") ? 2 : 1);
  const double params = *layers * per_layer + embeddings;

  const bool mixed = on(d, "bf16") || on(d, "fp16");
  const Found* opt = d.last("optimizer");
  const bool sgd = opt && opt->value == "sgd";
  double bytes_per = mixed ? 2 : 4;
  std::string what = mixed ? "16-bit weights" : "fp32 weights";
  if (!on(d, "no_save_optim")) {
    bytes_per += (mixed ? 4 : 0) + (sgd ? 4 : 8);
    what += mixed ? ", fp32 main weights" : "";
    what += sgd ? " and SGD's momentum" : " and Adam's two moments";
  } else {
    what += " only (--no-save-optim)";
  }
  // Beyond an exabyte the numbers are not a model's (and would not fit the
  // byte count): no estimate, so the size stays "not known".
  if (!(params * bytes_per < 1e18)) return std::nullopt;
  CheckpointEstimate e;
  e.parameters = params;
  e.bytes = static_cast<std::uint64_t>(params * bytes_per);
  e.how = "about " + text(params / 1e9, "%.2f") + "e9 parameters (" + shape +
          (vocab_note.empty() ? ", vocabulary " + text(vocab) : vocab_note) + ") x " +
          text(bytes_per) + " bytes (" + what + ", as Megatron-LM saves them)";
  e.where = d.last("num_layers")->where();
  return e;
}

}  // namespace hn::migrate
