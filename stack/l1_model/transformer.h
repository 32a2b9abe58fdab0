#pragma once
// The bundled model, as one rank's pipeline stage: a tiny decoder-only
// transformer (model_config.h) split by the layout.
//
//   stage 0:       token + position embedding
//   every stage:   layers/pp pre-norm blocks: x += attention(norm(x));
//                  x += ffn(norm(x)), the ffn a tp-split MLP or, with
//                  experts, a mixture of experts over ep
//   last stage:    final norm, output head, cross-entropy on the next token
//
// Tensor parallelism is Megatron's with sequence parallelism: the residual
// stream holds this tp rank's n = N/tp tokens; a block gathers the normed
// tokens (allgather), runs its column-parallel projections (q, k, v: this
// rank's heads; the MLP's first matrix: its columns) and row-parallel ones
// (attention output, the MLP's second matrix), and sums and scatters the
// partial results back to token shards (reduce-scatter). In backward the
// two swap. Norms, embeddings and experts see only this rank's tokens, so
// their gradients are summed over tp as well (grad_sync.h). The head is
// column-parallel over the vocabulary: its logit shards are gathered and
// every tp rank computes the same loss.
//
// Experts route by token (a seeded table per layer maps each token id to an
// expert, as hash-routed mixtures do), so the route of a token never depends
// on rounding and every layout sends every token to the same expert.
//
// All compute runs as L4 graphs through the GraphRunner; the constructor
// declares them, and the caller checks them against the matrix before the
// first step. What a step throws: op::UnsupportedOpError (never: declared
// graphs are checked first), op::GraphError, L3's errors.

#include <map>
#include <memory>
#include <vector>

#include "stack/l1_model/data.h"
#include "stack/l1_model/model_graphs.h"
#include "stack/l2_framework/grad_sync.h"
#include "stack/l2_framework/moe.h"
#include "stack/l2_framework/parameter.h"
#include "stack/l2_framework/pipeline.h"
#include "stack/l2_framework/process_groups.h"

namespace hn::stack::model {

class Transformer : public framework::PipelineStage {
 public:
  Transformer(const ModelConfig& config, framework::ProcessGroups& groups,
              framework::GraphRunner& runner, std::uint64_t seed);

  // This rank's parameters in forward order; the order their gradients are
  // final in backward; the dense ones and the experts (the replica check's two sets).
  std::vector<framework::Parameter*> parameters() const;
  std::vector<framework::Parameter*> backward_order();
  std::vector<const framework::Parameter*> dense_parameters() const;
  std::vector<const framework::Parameter*> expert_parameters() const;

  // Before a step's pipeline: its data, where ready gradients go (the loss
  // is scaled by 1 / (micro_batches * dp), so summed gradients are the
  // mean), and the timer for the data row.
  void begin_step(long long step, const SyntheticData& data, framework::GradSync* sync,
                  framework::StepTimer* timer);
  // The last stage's mean loss over the step's micro-batches (NaN elsewhere).
  double stage_loss() const;
  bool is_last_stage() const { return last_; }

  op::Tensor forward(int micro_batch, const op::Tensor* input) override;
  op::Tensor backward(int micro_batch, const op::Tensor* output_grad) override;
  op::TensorSpec boundary_spec() const override;

 private:
  struct Block {
    int layer = 0;
    framework::Parameter *ln1_s, *ln1_b, *wq, *wk, *wv, *wo, *ln2_s, *ln2_b;
    framework::Parameter *w1 = nullptr, *w2 = nullptr;        // dense MLP
    std::vector<framework::Parameter*> expert_w1, expert_w2;  // local experts
    std::vector<int> route;                                   // token id -> expert
  };
  struct BlockActs {
    op::Tensor x, h1f, q, k, v, p, ctx, x1, h2f, u, g;
    std::unique_ptr<framework::Routing> routing;
    std::vector<op::Tensor> xe, ue, ge;
  };
  struct MicroActs {
    MicroBatch data;
    op::Tensor ids, pids;  // this tp rank's token shard
    std::vector<BlockActs> blocks;
    op::Tensor xf, hff, logits;
  };

  framework::Parameter* add(const std::string& name, op::Tensor full, int shard_dim,
                            framework::Replicas replicas, bool sequence_parallel);
  std::map<std::string, op::Tensor> run(const op::Graph& g, std::map<std::string, op::Tensor> in);
  void ready(framework::Parameter* p);
  op::Tensor block_forward(Block& b, BlockActs& s, const op::Tensor& x, const MicroActs& a);
  op::Tensor block_backward(Block& b, BlockActs& s, const op::Tensor& dx2, bool last_mb);
  // acc is p->grad; the graph returns it updated under "<acc>'".
  void take(framework::Parameter* p, std::map<std::string, op::Tensor>& r, const std::string& acc);

  ModelConfig config_;
  framework::ProcessGroups& groups_;
  framework::GraphRunner& runner_;
  std::uint64_t seed_;
  Dims dims_;
  ModelGraphs graphs_;
  bool first_, last_;
  std::vector<std::unique_ptr<framework::Parameter>> params_;
  framework::Parameter *tok_ = nullptr, *pos_ = nullptr;
  framework::Parameter *lnf_s_ = nullptr, *lnf_b_ = nullptr, *head_ = nullptr;
  std::vector<Block> blocks_;
  op::Tensor mask_, attn_scale_, loss_scale_;

  long long step_ = 0;
  const SyntheticData* data_ = nullptr;
  framework::GradSync* sync_ = nullptr;
  framework::StepTimer* timer_ = nullptr;
  std::map<int, MicroActs> acts_;
  std::vector<double> losses_;
};

}  // namespace hn::stack::model
