#include "stack/l1_model/model_graphs.h"

namespace hn::stack::model {

using framework::GraphBuilder;
using op::Attributes;
using op::DType;
using op::Shape;
using op::TensorSpec;

namespace {

using Perm = std::vector<std::int64_t>;
const Perm kSwapHeads = {0, 2, 1, 3};  // [b, S, H, dh] <-> [b, H, S, dh]
const Perm kSwapLast = {0, 1, 3, 2};   // the last two axes of a 4-D tensor

Attributes perm(const Perm& p) {
  return {{"perm", p}};
}
Attributes shape(std::vector<std::int64_t> s) {
  return {{"shape", std::move(s)}};
}

std::string transpose2d(GraphBuilder& g, const std::string& x) {
  return g.op("transpose", {x}, {}, x + "T");
}

// acc' = acc + grad, as an output.
void accumulate(GraphBuilder& g, const std::string& acc, const std::string& grad) {
  g.output(acc + "'", "add", {acc, grad});
}

op::Graph norm_bwd_graph(bool residual) {
  GraphBuilder g;
  for (const char* in : {"x", "s", "dh"}) g.input(in);
  if (residual) g.input("dres");
  g.input("acc_s");
  g.input("acc_b");
  auto grad = [&](const char* output) {
    return g.op("layernorm_grad", {"x", "s", "dh"}, {{"output", std::string(output)}}, "ln_grad");
  };
  if (residual)
    g.output("dx", "add", {"dres", grad("input")});
  else
    g.output("dx", "layernorm_grad", {"x", "s", "dh"}, {{"output", std::string("input")}});
  accumulate(g, "acc_s", grad("scale"));
  accumulate(g, "acc_b", grad("bias"));
  return g.build();
}

}  // namespace

Dims Dims::of(const ModelConfig& c, const framework::Layout& l) {
  Dims d;
  d.tp = l.tp;
  d.b = c.micro_batch_size(l.dp);
  d.S = c.seq;
  d.D = c.hidden;
  d.Hl = c.heads / l.tp;
  d.dh = c.hidden / c.heads;
  d.F = c.ffn;
  d.Fl = c.ffn / l.tp;
  d.V = c.vocab;
  d.Vl = c.vocab / l.tp;
  d.N = d.b * d.S;
  d.n = d.N / l.tp;
  d.dtype = c.dtype;
  return d;
}

ModelGraphs ModelGraphs::build(const Dims& d) {
  ModelGraphs m;
  const std::int64_t b = d.b, S = d.S, Hl = d.Hl, dh = d.dh, N = d.N, Dl = d.Hl * d.dh;
  const std::int64_t tp = d.tp, V = d.V, Vl = d.Vl;
  {
    GraphBuilder g;
    for (const char* in : {"tok", "pos", "ids", "pids"}) g.input(in);
    g.output("x", "add", {g.op("embedding", {"tok", "ids"}), g.op("embedding", {"pos", "pids"})});
    m.embed_fwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"dx", "ids", "pids", "acc_tok", "acc_pos"}) g.input(in);
    accumulate(g, "acc_tok", g.op("embedding_grad", {"dx", "ids"}, {{"num_embeddings", V}}));
    accumulate(g, "acc_pos",
               g.op("embedding_grad", {"dx", "pids"}, {{"num_embeddings", std::int64_t{S}}}));
    m.embed_bwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"x", "s", "b"}) g.input(in);
    g.output("h", "layernorm", {"x", "s", "b"});
    m.norm_fwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"x", "a", "s", "b"}) g.input(in);
    g.output("x1", "add", {"x", "a"});
    g.output("h", "layernorm", {"x1", "s", "b"});
    m.residual_norm_fwd = g.build();
  }
  {
    GraphBuilder g;
    g.input("x");
    g.input("a");
    g.output("y", "add", {"x", "a"});
    m.residual = g.build();
  }
  m.norm_bwd = norm_bwd_graph(false);
  m.norm_bwd_residual = norm_bwd_graph(true);
  {
    GraphBuilder g;
    for (const char* in : {"h", "wq", "wk", "wv", "wo", "mask", "scale"}) g.input(in);
    auto heads = [&](const char* w, const char* name) {
      auto x = g.op("matmul", {"h", w});
      g.output(name, "transpose", {g.op("reshape", {x}, shape({b, S, Hl, dh}))}, perm(kSwapHeads));
    };
    heads("wq", "q");
    heads("wk", "k");
    heads("wv", "v");
    auto scores = g.op("matmul", {"q", g.op("transpose", {"k"}, perm(kSwapLast))}, {}, "scores");
    auto masked = g.op("add", {g.op("mul", {scores, "scale"}), "mask"});
    g.output("p", "softmax", {masked});
    auto o = g.op("transpose", {g.op("matmul", {"p", "v"})}, perm(kSwapHeads));
    g.output("ctx", "reshape", {o}, shape({N, Dl}));
    g.output("part", "matmul", {"ctx", "wo"});
    m.attn_fwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"dpart", "h", "q", "k", "v", "p", "ctx", "wq", "wk", "wv", "wo", "scale",
                           "acc_wq", "acc_wk", "acc_wv", "acc_wo"})
      g.input(in);
    accumulate(g, "acc_wo", g.op("matmul", {transpose2d(g, "ctx"), "dpart"}));
    auto dctx = g.op("matmul", {"dpart", transpose2d(g, "wo")});
    auto dO = g.op("transpose", {g.op("reshape", {dctx}, shape({b, S, Hl, dh}))}, perm(kSwapHeads));
    auto dP = g.op("matmul", {dO, g.op("transpose", {"v"}, perm(kSwapLast))});
    auto dV = g.op("matmul", {g.op("transpose", {"p"}, perm(kSwapLast)), dO});
    auto dS = g.op("mul", {g.op("softmax_grad", {"p", dP}), "scale"});
    auto dQ = g.op("matmul", {dS, "k"});
    auto dK = g.op("matmul", {g.op("transpose", {dS}, perm(kSwapLast)), "q"});
    auto flat = [&](const std::string& x) {
      return g.op("reshape", {g.op("transpose", {x}, perm(kSwapHeads))}, shape({N, Dl}));
    };
    auto dq = flat(dQ), dk = flat(dK), dv = flat(dV);
    const std::string hT = transpose2d(g, "h");
    accumulate(g, "acc_wq", g.op("matmul", {hT, dq}));
    accumulate(g, "acc_wk", g.op("matmul", {hT, dk}));
    accumulate(g, "acc_wv", g.op("matmul", {hT, dv}));
    auto from_q = g.op("matmul", {dq, transpose2d(g, "wq")});
    auto from_k = g.op("matmul", {dk, transpose2d(g, "wk")});
    auto from_v = g.op("matmul", {dv, transpose2d(g, "wv")});
    g.output("dh", "add", {g.op("add", {from_q, from_k}), from_v});
    m.attn_bwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"h", "w1", "w2"}) g.input(in);
    g.output("u", "matmul", {"h", "w1"});
    g.output("g", "gelu", {"u"});
    g.output("part", "matmul", {"g", "w2"});
    m.mlp_fwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"dpart", "h", "u", "g", "w1", "w2", "acc_w1", "acc_w2"}) g.input(in);
    accumulate(g, "acc_w2", g.op("matmul", {transpose2d(g, "g"), "dpart"}));
    auto du = g.op("gelu_grad", {"u", g.op("matmul", {"dpart", transpose2d(g, "w2")})});
    accumulate(g, "acc_w1", g.op("matmul", {transpose2d(g, "h"), du}));
    g.output("dh", "matmul", {du, transpose2d(g, "w1")});
    m.mlp_bwd = g.build();
  }
  {
    GraphBuilder g;
    g.input("h");
    g.input("w");
    g.output("part", "matmul", {"h", "w"});
    m.head_fwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"dpart", "h", "w", "acc_w"}) g.input(in);
    accumulate(g, "acc_w", g.op("matmul", {transpose2d(g, "h"), "dpart"}));
    g.output("dh", "matmul", {"dpart", transpose2d(g, "w")});
    m.head_bwd = g.build();
  }
  {
    // Gathered shards are [tp][N][Vl]; the logits are [N][tp * Vl].
    GraphBuilder g;
    g.input("shards");
    g.input("labels");
    auto blocks = g.op("reshape", {"shards"}, shape({tp, N, Vl}));
    g.output("logits", "reshape", {g.op("transpose", {blocks}, perm({1, 0, 2}))}, shape({N, V}));
    g.output("loss", "cross_entropy", {"logits", "labels"});
    m.loss_fwd = g.build();
  }
  {
    GraphBuilder g;
    for (const char* in : {"logits", "labels", "scale"}) g.input(in);
    auto dl = g.op("mul", {g.op("cross_entropy_grad", {"logits", "labels"}), "scale"});
    auto blocks = g.op("reshape", {dl}, shape({N, tp, Vl}));
    g.output("dshards", "reshape", {g.op("transpose", {blocks}, perm({1, 0, 2}))},
             shape({tp * N, Vl}));
    m.loss_bwd = g.build();
  }
  return m;
}

void ModelGraphs::declare_all(framework::GraphRunner& r, const Dims& d) const {
  const DType t = d.dtype;
  const std::int64_t n = d.n, N = d.N, D = d.D, Dl = d.Hl * d.dh, Fl = d.Fl, S = d.S;
  const TensorSpec xs{t, {n, D}}, vec{t, {D}}, full{t, {N, D}}, ids{DType::kI64, {n}};
  const TensorSpec q{t, {d.b, d.Hl, S, d.dh}}, p{t, {d.b, d.Hl, S, S}}, scalar{t, {}};
  const TensorSpec wq{t, {D, Dl}}, wo{t, {Dl, D}}, ctx{t, {N, Dl}};
  r.declare("embed_fwd", embed_fwd,
            {{"tok", {t, {d.V, D}}}, {"pos", {t, {S, D}}}, {"ids", ids}, {"pids", ids}});
  r.declare("embed_bwd", embed_bwd,
            {{"dx", xs},
             {"ids", ids},
             {"pids", ids},
             {"acc_tok", {t, {d.V, D}}},
             {"acc_pos", {t, {S, D}}}});
  r.declare("norm_fwd", norm_fwd, {{"x", xs}, {"s", vec}, {"b", vec}});
  r.declare("residual_norm_fwd", residual_norm_fwd, {{"x", xs}, {"a", xs}, {"s", vec}, {"b", vec}});
  r.declare("residual", residual, {{"x", xs}, {"a", xs}});
  r.declare("norm_bwd", norm_bwd,
            {{"x", xs}, {"s", vec}, {"dh", xs}, {"acc_s", vec}, {"acc_b", vec}});
  r.declare("norm_bwd_residual", norm_bwd_residual,
            {{"x", xs}, {"s", vec}, {"dh", xs}, {"dres", xs}, {"acc_s", vec}, {"acc_b", vec}});
  r.declare("attn_fwd", attn_fwd,
            {{"h", full},
             {"wq", wq},
             {"wk", wq},
             {"wv", wq},
             {"wo", wo},
             {"mask", {t, {S, S}}},
             {"scale", scalar}});
  r.declare("attn_bwd", attn_bwd,
            {{"dpart", full},
             {"h", full},
             {"q", q},
             {"k", q},
             {"v", q},
             {"p", p},
             {"ctx", ctx},
             {"wq", wq},
             {"wk", wq},
             {"wv", wq},
             {"wo", wo},
             {"scale", scalar},
             {"acc_wq", wq},
             {"acc_wk", wq},
             {"acc_wv", wq},
             {"acc_wo", wo}});
  // The dense MLP (tp-split, all N tokens); the experts run the same graphs
  // on the rows they receive, whole width.
  for (auto [rows, cols, name] :
       {std::tuple{N, Fl, "mlp"}, std::tuple{std::int64_t{1}, std::int64_t{d.F}, "expert"}}) {
    const TensorSpec h{t, {rows, D}}, w1{t, {D, cols}}, w2{t, {cols, D}}, u{t, {rows, cols}};
    r.declare(std::string(name) + "_fwd", mlp_fwd, {{"h", h}, {"w1", w1}, {"w2", w2}});
    r.declare(std::string(name) + "_bwd", mlp_bwd,
              {{"dpart", h},
               {"h", h},
               {"u", u},
               {"g", u},
               {"w1", w1},
               {"w2", w2},
               {"acc_w1", w1},
               {"acc_w2", w2}});
  }
  const TensorSpec w{t, {D, d.Vl}}, part{t, {N, d.Vl}};
  r.declare("head_fwd", head_fwd, {{"h", full}, {"w", w}});
  r.declare("head_bwd", head_bwd, {{"dpart", part}, {"h", full}, {"w", w}, {"acc_w", w}});
  const TensorSpec labels{DType::kI64, {N}};
  r.declare("loss_fwd", loss_fwd, {{"shards", {t, {d.tp * N, d.Vl}}}, {"labels", labels}});
  r.declare("loss_bwd", loss_bwd,
            {{"logits", {t, {N, d.V}}}, {"labels", labels}, {"scale", scalar}});
}

}  // namespace hn::stack::model
