#pragma once
// The L4 graphs of the model's forward and backward passes, one per piece
// the parallel layout keeps whole on a rank (the communication between them
// is the framework's). Shapes are this rank's: n tokens of its
// sequence-parallel shard, N = tokens of a micro-batch, b sequences of S
// tokens, Hl heads of width dh and Fl MLP columns of its tensor-parallel
// shard, Vl vocabulary columns of the output head.
//
// Every graph's named inputs and outputs are listed with it; backward graphs
// take the accumulated gradients ("acc_*") and return them updated under the
// same name with a prime ("acc_w1'"), so gradient accumulation runs through
// the executor too. declare_all()
// registers every graph with representative specs so GraphRunner::check()
// can refuse a backend before the first step.

#include <string>

#include "stack/l1_model/model_config.h"
#include "stack/l2_framework/graph_runner.h"

namespace hn::stack::model {

struct Dims {
  int b = 1, S = 1, D = 1, Hl = 1, dh = 1, Fl = 1, F = 1, V = 1, Vl = 1, tp = 1;
  int n = 1, N = 1;  // tokens: shard, micro-batch
  op::DType dtype = op::DType::kF32;
  static Dims of(const ModelConfig& c, const framework::Layout& l);
};

struct ModelGraphs {
  // x = tok[ids] + pos[pids]                      in: tok pos ids pids      out: x
  op::Graph embed_fwd;
  // acc_tok += embedding_grad(dx, ids), same for pos
  //                                               in: dx ids pids acc_tok acc_pos  out: acc_tok
  //                                               acc_pos
  op::Graph embed_bwd;
  // h = layernorm(x, s, b)                        in: x s b                 out: h
  op::Graph norm_fwd;
  // x1 = x + a; h = layernorm(x1, s, b)           in: x a s b               out: x1 h
  op::Graph residual_norm_fwd;
  // y = x + a                                     in: x a                   out: y
  op::Graph residual;
  // dx = layernorm_grad(x, s, dh) (+ dres);  acc_s, acc_b updated
  //                                               in: x s dh [dres] acc_s acc_b   out: dx acc_s
  //                                               acc_b
  op::Graph norm_bwd, norm_bwd_residual;
  // causal attention of this rank's heads       in: h wq wk wv wo mask scale
  //                                               out: q k v p ctx part
  op::Graph attn_fwd;
  // in: dpart h q k v p ctx wq wk wv wo scale acc_wq acc_wk acc_wv acc_wo
  // out: dh acc_wq acc_wk acc_wv acc_wo
  op::Graph attn_bwd;
  // u = h w1; g = gelu(u); part = g w2            in: h w1 w2               out: u g part
  op::Graph mlp_fwd;
  // in: dpart h u g w1 w2 acc_w1 acc_w2           out: dh acc_w1 acc_w2
  op::Graph mlp_bwd;
  // the logits shard of the output head           in: h w                   out: part
  op::Graph head_fwd;
  // in: dpart h w acc_w                           out: dh acc_w
  op::Graph head_bwd;
  // the tp-gathered logit shards [tp N, Vl] in vocabulary order, and the loss
  //                                               in: shards labels         out: logits loss
  op::Graph loss_fwd;
  // d shards of the loss scaled by `scale`      in: logits labels scale   out: dshards
  op::Graph loss_bwd;

  static ModelGraphs build(const Dims& d);
  // Registers every graph with its input specs (experts' graphs use m rows).
  void declare_all(framework::GraphRunner& runner, const Dims& d) const;
};

}  // namespace hn::stack::model
