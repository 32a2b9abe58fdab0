// Writes the example job's model: one pre-norm transformer block (GPT style:
// LayerNormalization, multi-head attention, residual, LayerNormalization,
// an MLP with the erf form of GELU, residual) as an ONNX model, built with
// the ONNX protobuf API of libonnx-dev 1.12 and checked with onnx::checker.
//
//   make_model legacy OUT.onnx   attention scores as Einsum("bhqd,bhkd->bhqk"),
//                                as model code written with torch.einsum
//                                exports it
//   make_model fixed OUT.onnx    the same scores as Transpose + MatMul
//
// Weights are deterministic (a fixed linear congruential sequence), so the
// output is byte for byte the same on every run: tests/migrate regenerates
// both files and compares them with the checked-in copies.
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr int kSeq = 16, kModel = 32, kHeads = 4, kHead = kModel / kHeads, kFfn = 4 * kModel;

class Builder {
 public:
  Builder() {
    model_.set_ir_version(8);
    model_.set_producer_name("hnprecheck examples/migrate/make_model");
    model_.set_producer_version("1");
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);  // LayerNormalization is in ai.onnx 17
    graph_ = model_.mutable_graph();
    graph_->set_name("gpt_block");
  }

  void io(const std::string& name, bool input) {
    auto* v = input ? graph_->add_input() : graph_->add_output();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int d : {1, kSeq, kModel}) t->mutable_shape()->add_dim()->set_dim_value(d);
  }

  std::string weight(const std::string& name, std::vector<int64_t> dims, float scale,
                     float offset = 0) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (auto d : dims) {
      t->add_dims(d);
      n *= d;
    }
    for (int64_t i = 0; i < n; ++i) {
      seed_ = seed_ * 1103515245u + 12345u;
      float u = static_cast<float>((seed_ >> 8) & 0xffff) / 65535.0f - 0.5f;
      t->add_float_data(offset + scale * u);
    }
    return name;
  }

  // One initializer per name: the heads' shape is shared by q, k and v.
  std::string shape(const std::string& name, std::vector<int64_t> dims) {
    for (const auto& init : graph_->initializer())
      if (init.name() == name) return name;
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(dims.size()));
    for (auto d : dims) t->add_int64_data(d);
    return name;
  }

  std::string scalar(const std::string& name, float v) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
    return name;
  }

  onnx::NodeProto* node(const std::string& op, std::vector<std::string> in,
                        const std::string& out) {
    auto* n = graph_->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(++count_));
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  }

  std::string perm(const std::string& x, std::vector<int64_t> p, const std::string& out) {
    auto* a = node("Transpose", {x}, out)->add_attribute();
    a->set_name("perm");
    a->set_type(onnx::AttributeProto::INTS);
    for (auto v : p) a->add_ints(v);
    return out;
  }

  std::string layer_norm(const std::string& x, const std::string& prefix) {
    auto* n = node("LayerNormalization",
                   {x, weight(prefix + ".scale", {kModel}, 0.1f, 1.0f),
                    weight(prefix + ".bias", {kModel}, 0.1f)},
                   prefix + ".out");
    auto* a = n->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(-1);
    return prefix + ".out";
  }

  std::string linear(const std::string& x, const std::string& prefix, int in, int out) {
    node("MatMul", {x, weight(prefix + ".weight", {in, out}, 2.0f / std::sqrt(float(in)))},
         prefix + ".mm");
    return node("Add", {prefix + ".mm", weight(prefix + ".bias", {out}, 0.02f)}, prefix + ".out")
        ->output(0);
  }

  // [1, seq, model] -> [1, heads, seq, head]
  std::string heads(const std::string& x, const std::string& name) {
    node("Reshape", {x, shape("shape.heads", {1, kSeq, kHeads, kHead})}, name + ".split");
    return perm(name + ".split", {0, 2, 1, 3}, name + ".heads");
  }

  onnx::ModelProto& model() { return model_; }

 private:
  onnx::ModelProto model_;
  onnx::GraphProto* graph_;
  uint32_t seed_ = 20260101u;
  int count_ = 0;
};

onnx::ModelProto build(bool einsum) {
  Builder b;
  b.io("x", true);
  std::string h = b.layer_norm("x", "ln1");
  std::string q = b.heads(b.linear(h, "attn.q", kModel, kModel), "q");
  std::string k = b.heads(b.linear(h, "attn.k", kModel, kModel), "k");
  std::string v = b.heads(b.linear(h, "attn.v", kModel, kModel), "v");
  std::string scores = "attn.scores";
  if (einsum) {
    auto* n = b.node("Einsum", {q, k}, scores);
    auto* a = n->add_attribute();
    a->set_name("equation");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("bhqd,bhkd->bhqk");
  } else {
    b.node("MatMul", {q, b.perm(k, {0, 1, 3, 2}, "k.t")}, scores);
  }
  b.node("Mul", {scores, b.scalar("attn.scale", 1.0f / std::sqrt(float(kHead)))}, "attn.scaled");
  auto* sm = b.node("Softmax", {"attn.scaled"}, "attn.probs");
  auto* axis = sm->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(-1);
  b.node("MatMul", {"attn.probs", v}, "attn.ctx");
  b.perm("attn.ctx", {0, 2, 1, 3}, "attn.merge");
  b.node("Reshape", {"attn.merge", b.shape("shape.model", {1, kSeq, kModel})}, "attn.flat");
  b.node("Add", {"x", b.linear("attn.flat", "attn.out", kModel, kModel)}, "res1");
  std::string f = b.linear(b.layer_norm("res1", "ln2"), "mlp.fc1", kModel, kFfn);
  // GELU, erf form: 0.5 * x * (1 + erf(x / sqrt(2)))
  b.node("Div", {f, b.scalar("gelu.sqrt2", std::sqrt(2.0f))}, "gelu.div");
  b.node("Erf", {"gelu.div"}, "gelu.erf");
  b.node("Add", {"gelu.erf", b.scalar("gelu.one", 1.0f)}, "gelu.plus1");
  b.node("Mul", {f, "gelu.plus1"}, "gelu.mul");
  b.node("Mul", {"gelu.mul", b.scalar("gelu.half", 0.5f)}, "gelu.out");
  b.node("Add", {"res1", b.linear("gelu.out", "mlp.fc2", kFfn, kModel)}, "y");
  b.io("y", false);
  return b.model();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "legacy" && std::string(argv[1]) != "fixed")) {
    std::fprintf(stderr, "usage: make_model legacy|fixed OUT.onnx\n");
    return 2;
  }
  onnx::ModelProto m = build(std::string(argv[1]) == "legacy");
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_model: the model does not pass onnx::checker: %s\n", e.what());
    return 1;
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return 1;
  std::ofstream out(argv[2], std::ios::binary);
  out << bytes;
  return out.good() ? 0 : 1;
}
