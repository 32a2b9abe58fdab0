#include "stack/l1_model/transformer.h"

#include <cmath>
#include <limits>
#include <random>

namespace hn::stack::model {

using framework::Parameter;
using framework::Replicas;
using op::Tensor;
using Values = std::map<std::string, Tensor>;

namespace {

Tensor scalar(op::DType t, double v) {
  Tensor s(t, {});
  s.set(0, v);
  return s;
}

// The token -> expert table of one layer: a seeded shuffle of round-robin
// assignments, so experts get about the same number of vocabulary entries.
std::vector<int> route_table(std::uint64_t seed, int layer, int vocab, int experts) {
  std::vector<int> table(static_cast<std::size_t>(vocab));
  for (int v = 0; v < vocab; ++v) table[static_cast<std::size_t>(v)] = v % experts;
  std::mt19937_64 rng(seed * 1000003ull + static_cast<std::uint64_t>(layer) + 17);
  for (std::size_t i = table.size(); i > 1; --i) std::swap(table[i - 1], table[rng() % i]);
  return table;
}

}  // namespace

Transformer::Transformer(const ModelConfig& config, framework::ProcessGroups& groups,
                         framework::GraphRunner& runner, std::uint64_t seed)
    : config_(config),
      groups_(groups),
      runner_(runner),
      seed_(seed),
      dims_(Dims::of(config, groups.layout)),
      graphs_(ModelGraphs::build(dims_)),
      first_(groups.coords.pp == 0),
      last_(groups.coords.pp == groups.layout.pp - 1) {
  config.check_layout(groups.layout);
  graphs_.declare_all(runner, dims_);
  const op::DType t = config.dtype;
  const int D = config.hidden, F = config.ffn, V = config.vocab, S = config.seq;
  const bool sp = groups.layout.tp > 1;
  const double wstd = 1.0 / std::sqrt(static_cast<double>(D));
  auto ones = [&] { return framework::init_constant({D}, 1.0, t); };
  auto zeros = [&] { return framework::init_constant({D}, 0.0, t); };
  if (first_) {
    tok_ = add("embed.tok", framework::init_normal(seed, "embed.tok", {V, D}, 1.0, t), -1,
               Replicas::kData, sp);
    pos_ = add("embed.pos", framework::init_normal(seed, "embed.pos", {S, D}, 0.2, t), -1,
               Replicas::kData, sp);
  }
  const int per_stage = config.layers / groups.layout.pp;
  for (int i = 0; i < per_stage; ++i) {
    Block b;
    b.layer = groups.coords.pp * per_stage + i;
    const std::string p = "layer" + std::to_string(b.layer) + ".";
    auto w = [&](const std::string& name, op::Shape shape, double std, int dim) {
      return add(p + name, framework::init_normal(seed, p + name, shape, std, t), dim,
                 Replicas::kData, false);
    };
    b.ln1_s = add(p + "ln1.scale", ones(), -1, Replicas::kData, sp);
    b.ln1_b = add(p + "ln1.bias", zeros(), -1, Replicas::kData, sp);
    b.wq = w("attn.wq", {D, D}, wstd, 1);
    b.wk = w("attn.wk", {D, D}, wstd, 1);
    b.wv = w("attn.wv", {D, D}, wstd, 1);
    b.wo = w("attn.wo", {D, D}, wstd * 0.5, 0);
    b.ln2_s = add(p + "ln2.scale", ones(), -1, Replicas::kData, sp);
    b.ln2_b = add(p + "ln2.bias", zeros(), -1, Replicas::kData, sp);
    if (config.experts == 0) {
      b.w1 = w("mlp.w1", {D, F}, wstd, 1);
      b.w2 = w("mlp.w2", {F, D}, 0.5 / std::sqrt(static_cast<double>(F)), 0);
    } else {
      const int local = config.experts / groups.layout.ep;
      for (int e = groups.coords.ep * local; e < (groups.coords.ep + 1) * local; ++e) {
        const std::string q = p + "expert" + std::to_string(e) + ".";
        b.expert_w1.push_back(add(q + "w1", framework::init_normal(seed, q + "w1", {D, F}, wstd, t),
                                  -1, Replicas::kExpertData, sp));
        b.expert_w2.push_back(
            add(q + "w2",
                framework::init_normal(seed, q + "w2", {F, D},
                                       0.5 / std::sqrt(static_cast<double>(F)), t),
                -1, Replicas::kExpertData, sp));
      }
      b.route = route_table(seed, b.layer, V, config.experts);
    }
    blocks_.push_back(std::move(b));
  }
  if (last_) {
    lnf_s_ = add("final.ln.scale", ones(), -1, Replicas::kData, sp);
    lnf_b_ = add("final.ln.bias", zeros(), -1, Replicas::kData, sp);
    head_ = add("final.head", framework::init_normal(seed, "final.head", {D, V}, wstd, t), 1,
                Replicas::kData, false);
  }
  mask_ = Tensor(t, {S, S});
  for (int i = 0; i < S; ++i)
    for (int j = i + 1; j < S; ++j) mask_.set(i * S + j, -1e9);  // causal: no peeking ahead
  attn_scale_ = scalar(t, 1.0 / std::sqrt(static_cast<double>(dims_.dh)));
  loss_scale_ = scalar(t, 1.0 / (config.micro_batches * groups.layout.dp));
}

Parameter* Transformer::add(const std::string& name, Tensor full, int shard_dim, Replicas replicas,
                            bool sequence_parallel) {
  auto p = std::make_unique<Parameter>();
  p->name = name;
  p->value = shard_dim < 0
                 ? std::move(full)
                 : framework::shard(full, shard_dim, groups_.layout.tp, groups_.coords.tp);
  p->replicas = replicas;
  p->sequence_parallel = sequence_parallel;
  p->zero_grad();
  params_.push_back(std::move(p));
  return params_.back().get();
}

std::vector<Parameter*> Transformer::parameters() const {
  std::vector<Parameter*> out;
  for (auto& p : params_) out.push_back(p.get());
  return out;
}

std::vector<Parameter*> Transformer::backward_order() {
  std::vector<Parameter*> out;
  if (last_) out.insert(out.end(), {head_, lnf_s_, lnf_b_});
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
    const Block& b = *it;
    if (b.w1) {
      out.insert(out.end(), {b.w1, b.w2});
    } else {
      for (std::size_t e = 0; e < b.expert_w1.size(); ++e)
        out.insert(out.end(), {b.expert_w1[e], b.expert_w2[e]});
    }
    out.insert(out.end(), {b.ln2_s, b.ln2_b, b.wq, b.wk, b.wv, b.wo, b.ln1_s, b.ln1_b});
  }
  if (first_) out.insert(out.end(), {tok_, pos_});
  return out;
}

std::vector<const Parameter*> Transformer::dense_parameters() const {
  std::vector<const Parameter*> out;
  for (const auto& p : params_)
    if (p->replicas == Replicas::kData) out.push_back(p.get());
  return out;
}

std::vector<const Parameter*> Transformer::expert_parameters() const {
  std::vector<const Parameter*> out;
  for (const auto& p : params_)
    if (p->replicas == Replicas::kExpertData) out.push_back(p.get());
  return out;
}

void Transformer::begin_step(long long step, const SyntheticData& data, framework::GradSync* sync,
                             framework::StepTimer* timer) {
  step_ = step;
  timer_ = timer;
  data_ = &data;
  sync_ = sync;
  acts_.clear();
  losses_.clear();
}

double Transformer::stage_loss() const {
  if (!last_ || losses_.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double l : losses_) sum += l;
  return sum / static_cast<double>(losses_.size());
}

op::TensorSpec Transformer::boundary_spec() const {
  return {config_.dtype, {dims_.n, dims_.D}};
}

Values Transformer::run(const op::Graph& g, Values in) {
  return runner_.run(g, in);
}

void Transformer::ready(Parameter* p) {
  if (sync_) sync_->mark_ready(p);
}

void Transformer::take(Parameter* p, Values& r, const std::string& acc) {
  p->grad = std::move(r.at(acc + "'"));
}

Tensor Transformer::forward(int mb, const Tensor* input) {
  MicroActs& a = acts_[mb];
  {
    auto t = framework::StepTimer::time(timer_, "L1", "data");
    a.data = data_->micro_batch(step_, groups_.coords.dp, groups_.layout.dp, mb);
  }
  const int tp = groups_.layout.tp, r = groups_.coords.tp;
  a.ids = framework::shard(a.data.ids, 0, tp, r);
  a.pids = Tensor(op::DType::kI64, {dims_.n});
  for (std::int64_t i = 0; i < dims_.n; ++i)
    a.pids.set(i, static_cast<double>((r * dims_.n + i) % dims_.S));
  Tensor x;
  if (first_) {
    x = std::move(
        run(graphs_.embed_fwd,
            {{"tok", tok_->value}, {"pos", pos_->value}, {"ids", a.ids}, {"pids", a.pids}})
            .at("x"));
  } else {
    x = *input;
  }
  a.blocks.resize(blocks_.size());
  for (std::size_t i = 0; i < blocks_.size(); ++i) x = block_forward(blocks_[i], a.blocks[i], x, a);
  if (!last_) return x;
  a.xf = x;
  Tensor h = std::move(
      run(graphs_.norm_fwd, {{"x", x}, {"s", lnf_s_->value}, {"b", lnf_b_->value}}).at("h"));
  a.hff = groups_.tp->allgather(h);
  Tensor part = std::move(run(graphs_.head_fwd, {{"h", a.hff}, {"w", head_->value}}).at("part"));
  Values lr =
      run(graphs_.loss_fwd, {{"shards", groups_.tp->allgather(part)}, {"labels", a.data.labels}});
  a.logits = std::move(lr.at("logits"));
  losses_.push_back(lr.at("loss").get(0));
  return {};
}

Tensor Transformer::block_forward(Block& b, BlockActs& s, const Tensor& x, const MicroActs& a) {
  framework::Group& tp = *groups_.tp;
  s.x = x;
  Tensor h1 = std::move(
      run(graphs_.norm_fwd, {{"x", x}, {"s", b.ln1_s->value}, {"b", b.ln1_b->value}}).at("h"));
  s.h1f = tp.allgather(h1);
  Values at = run(graphs_.attn_fwd, {{"h", s.h1f},
                                     {"wq", b.wq->value},
                                     {"wk", b.wk->value},
                                     {"wv", b.wv->value},
                                     {"wo", b.wo->value},
                                     {"mask", mask_},
                                     {"scale", attn_scale_}});
  s.q = std::move(at.at("q"));
  s.k = std::move(at.at("k"));
  s.v = std::move(at.at("v"));
  s.p = std::move(at.at("p"));
  s.ctx = std::move(at.at("ctx"));
  Tensor attn = tp.reduce_scatter(at.at("part"));
  Values rn = run(graphs_.residual_norm_fwd,
                  {{"x", x}, {"a", attn}, {"s", b.ln2_s->value}, {"b", b.ln2_b->value}});
  s.x1 = std::move(rn.at("x1"));
  Tensor ffn;
  if (b.w1) {
    s.h2f = tp.allgather(rn.at("h"));
    Values m = run(graphs_.mlp_fwd, {{"h", s.h2f}, {"w1", b.w1->value}, {"w2", b.w2->value}});
    s.u = std::move(m.at("u"));
    s.g = std::move(m.at("g"));
    ffn = tp.reduce_scatter(m.at("part"));
  } else {
    std::vector<int> expert_of(static_cast<std::size_t>(dims_.n));
    for (std::int64_t i = 0; i < dims_.n; ++i)
      expert_of[static_cast<std::size_t>(i)] = b.route[static_cast<std::size_t>(a.ids.get(i))];
    s.routing = std::make_unique<framework::Routing>(*groups_.ep, expert_of, config_.experts);
    s.xe = s.routing->dispatch(rn.at("h"));
    std::vector<Tensor> ye;
    for (std::size_t e = 0; e < s.xe.size(); ++e) {
      Values m =
          run(graphs_.mlp_fwd,
              {{"h", s.xe[e]}, {"w1", b.expert_w1[e]->value}, {"w2", b.expert_w2[e]->value}});
      s.ue.push_back(std::move(m.at("u")));
      s.ge.push_back(std::move(m.at("g")));
      ye.push_back(std::move(m.at("part")));
    }
    ffn = s.routing->combine(ye);
  }
  return std::move(run(graphs_.residual, {{"x", s.x1}, {"a", ffn}}).at("y"));
}

Tensor Transformer::backward(int mb, const Tensor* output_grad) {
  MicroActs& a = acts_.at(mb);
  const bool last_mb = mb == config_.micro_batches - 1;
  framework::Group& tp = *groups_.tp;
  Tensor dx;
  if (last_) {
    Values lb = run(graphs_.loss_bwd,
                    {{"logits", a.logits}, {"labels", a.data.labels}, {"scale", loss_scale_}});
    Tensor dpart = framework::shard(lb.at("dshards"), 0, groups_.layout.tp, groups_.coords.tp);
    Values hb = run(graphs_.head_bwd,
                    {{"dpart", dpart}, {"h", a.hff}, {"w", head_->value}, {"acc_w", head_->grad}});
    take(head_, hb, "acc_w");
    if (last_mb) ready(head_);
    Tensor dh = tp.reduce_scatter(hb.at("dh"));
    Values nb = run(graphs_.norm_bwd, {{"x", a.xf},
                                       {"s", lnf_s_->value},
                                       {"dh", dh},
                                       {"acc_s", lnf_s_->grad},
                                       {"acc_b", lnf_b_->grad}});
    take(lnf_s_, nb, "acc_s");
    take(lnf_b_, nb, "acc_b");
    if (last_mb) {
      ready(lnf_s_);
      ready(lnf_b_);
    }
    dx = std::move(nb.at("dx"));
  } else {
    dx = *output_grad;
  }
  for (std::size_t i = blocks_.size(); i-- > 0;)
    dx = block_backward(blocks_[i], a.blocks[i], dx, last_mb);
  if (first_) {
    Values eb = run(graphs_.embed_bwd, {{"dx", dx},
                                        {"ids", a.ids},
                                        {"pids", a.pids},
                                        {"acc_tok", tok_->grad},
                                        {"acc_pos", pos_->grad}});
    take(tok_, eb, "acc_tok");
    take(pos_, eb, "acc_pos");
    if (last_mb) {
      ready(tok_);
      ready(pos_);
    }
  }
  acts_.erase(mb);
  return dx;
}

Tensor Transformer::block_backward(Block& b, BlockActs& s, const Tensor& dx2, bool last_mb) {
  framework::Group& tp = *groups_.tp;
  Tensor dh2;
  if (b.w1) {
    Values m = run(graphs_.mlp_bwd, {{"dpart", tp.allgather(dx2)},
                                     {"h", s.h2f},
                                     {"u", s.u},
                                     {"g", s.g},
                                     {"w1", b.w1->value},
                                     {"w2", b.w2->value},
                                     {"acc_w1", b.w1->grad},
                                     {"acc_w2", b.w2->grad}});
    take(b.w1, m, "acc_w1");
    take(b.w2, m, "acc_w2");
    if (last_mb) {
      ready(b.w1);
      ready(b.w2);
    }
    dh2 = tp.reduce_scatter(m.at("dh"));
  } else {
    std::vector<Tensor> dye = s.routing->dispatch(dx2), dxe;
    for (std::size_t e = 0; e < dye.size(); ++e) {
      Parameter *w1 = b.expert_w1[e], *w2 = b.expert_w2[e];
      Values m = run(graphs_.mlp_bwd, {{"dpart", dye[e]},
                                       {"h", s.xe[e]},
                                       {"u", s.ue[e]},
                                       {"g", s.ge[e]},
                                       {"w1", w1->value},
                                       {"w2", w2->value},
                                       {"acc_w1", w1->grad},
                                       {"acc_w2", w2->grad}});
      take(w1, m, "acc_w1");
      take(w2, m, "acc_w2");
      if (last_mb) {
        ready(w1);
        ready(w2);
      }
      dxe.push_back(std::move(m.at("dh")));
    }
    dh2 = s.routing->combine(dxe);
  }
  Values n2 = run(graphs_.norm_bwd_residual, {{"x", s.x1},
                                              {"s", b.ln2_s->value},
                                              {"dh", dh2},
                                              {"dres", dx2},
                                              {"acc_s", b.ln2_s->grad},
                                              {"acc_b", b.ln2_b->grad}});
  take(b.ln2_s, n2, "acc_s");
  take(b.ln2_b, n2, "acc_b");
  if (last_mb) {
    ready(b.ln2_s);
    ready(b.ln2_b);
  }
  const Tensor dx1 = std::move(n2.at("dx"));
  Values at = run(graphs_.attn_bwd, {{"dpart", tp.allgather(dx1)},
                                     {"h", s.h1f},
                                     {"q", s.q},
                                     {"k", s.k},
                                     {"v", s.v},
                                     {"p", s.p},
                                     {"ctx", s.ctx},
                                     {"wq", b.wq->value},
                                     {"wk", b.wk->value},
                                     {"wv", b.wv->value},
                                     {"wo", b.wo->value},
                                     {"scale", attn_scale_},
                                     {"acc_wq", b.wq->grad},
                                     {"acc_wk", b.wk->grad},
                                     {"acc_wv", b.wv->grad},
                                     {"acc_wo", b.wo->grad}});
  for (auto [p, acc] : {std::pair{b.wq, "acc_wq"}, std::pair{b.wk, "acc_wk"},
                        std::pair{b.wv, "acc_wv"}, std::pair{b.wo, "acc_wo"}})
    take(p, at, acc);
  if (last_mb)
    for (Parameter* p : {b.wq, b.wk, b.wv, b.wo}) ready(p);
  Tensor dh1 = tp.reduce_scatter(at.at("dh"));
  Values n1 = run(graphs_.norm_bwd_residual, {{"x", s.x},
                                              {"s", b.ln1_s->value},
                                              {"dh", dh1},
                                              {"dres", dx1},
                                              {"acc_s", b.ln1_s->grad},
                                              {"acc_b", b.ln1_b->grad}});
  take(b.ln1_s, n1, "acc_s");
  take(b.ln1_b, n1, "acc_b");
  if (last_mb) {
    ready(b.ln1_s);
    ready(b.ln1_b);
  }
  return std::move(n1.at("dx"));
}

}  // namespace hn::stack::model
