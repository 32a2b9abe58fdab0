#include "stack/l1_model/trainer.h"

#include <cstring>
#include <stdexcept>

#include "stack/l2_framework/pipeline.h"

namespace hn::stack::model {

namespace {

const compat::OpMatrix& require_matrix(const TrainerOptions& o) {
  if (!o.matrix) throw std::invalid_argument("trainer: no operator matrix given");
  return *o.matrix;
}

}  // namespace

Trainer::Trainer(comm::Communicator& world, TrainerOptions options)
    : options_((options.model.check_layout(options.layout), std::move(options))),
      groups_(
          framework::ProcessGroups::create(world, options_.layout, &timer_, options_.group_links)),
      runner_(require_matrix(options_), &timer_),
      model_(options_.model, groups_, runner_, options_.seed),
      sync_(model_.backward_order(), groups_, options_.grad_sync),
      optimizer_(options_.optimizer, model_.parameters()),
      data_(options_.model, options_.seed) {
  runner_.check();  // an operator the backend lacks fails here, before any step
}

StepResult Trainer::step() {
  timer_.begin_step();
  for (framework::Parameter* p : model_.parameters()) p->zero_grad();
  sync_.start_step();
  model_.begin_step(options_.same_batch_every_step ? 0 : step_, data_, &sync_, &timer_);
  framework::run_1f1b(*groups_.pp, model_, options_.model.micro_batches,
                      options_.pipeline_faults);
  sync_.finish();
  if (step_ != options_.fault_skip_update_at) optimizer_.step(&timer_);
  // The step's loss: the last stage's mean over its micro-batches, averaged
  // over its data-parallel replicas, then sent to the other stages.
  op::Tensor loss(op::DType::kF64, {1});
  if (model_.is_last_stage()) {
    loss.set(0, model_.stage_loss());
    groups_.dp->allreduce(loss);
    loss.set(0, loss.get(0) / options_.layout.dp);
  }
  groups_.pp->broadcast(loss, options_.layout.pp - 1);
  StepResult r;
  r.step = step_++;
  r.loss = loss.get(0);
  r.time = timer_.end_step();
  return r;
}

std::vector<framework::ReplicaGroupResult> Trainer::check_replicas() {
  groups_.set_timer(nullptr);  // not part of any step
  auto r =
      framework::check_replicas(groups_, model_.dense_parameters(), model_.expert_parameters());
  groups_.set_timer(&timer_);
  return r;
}

TrainingState Trainer::state() const {
  TrainingState s;
  s.step = step_;
  s.optimizer_steps = optimizer_.steps();
  for (const framework::Parameter* p : model_.parameters()) {
    s.tensors.push_back({p->name, p->value});
    s.tensors.push_back({p->name + "#exp_avg", p->exp_avg});
    s.tensors.push_back({p->name + "#exp_avg_sq", p->exp_avg_sq});
  }
  return s;
}

void Trainer::restore(const TrainingState& s) {
  std::vector<framework::Parameter*> params = model_.parameters();
  if (s.tensors.size() != params.size() * 3)
    throw std::invalid_argument("checkpoint holds " + std::to_string(s.tensors.size()) +
                                " tensors, this rank's model needs " +
                                std::to_string(params.size() * 3));
  std::size_t i = 0;
  for (framework::Parameter* p : params)
    for (op::Tensor* t : {&p->value, &p->exp_avg, &p->exp_avg_sq}) {
      const NamedTensor& n = s.tensors[i++];
      const std::string want = t == &p->value     ? p->name
                               : t == &p->exp_avg ? p->name + "#exp_avg"
                                                  : p->name + "#exp_avg_sq";
      if (n.name != want || n.value.dtype() != t->dtype() || n.value.shape() != t->shape())
        throw std::invalid_argument("checkpoint tensor " + n.name + " " +
                                    op::to_string(n.value.shape()) + " does not match " + want +
                                    " " + op::to_string(t->shape()));
      *t = n.value;
    }
  step_ = s.step;
  optimizer_.set_steps(s.optimizer_steps);
}

void Trainer::flip_one_bit() {
  for (framework::Parameter* p : model_.parameters())
    if (p->replicas == framework::Replicas::kData && p->value.numel() > 0) {
      auto* b = static_cast<unsigned char*>(p->value.data());
      b[0] ^= 1;
      return;
    }
}

std::size_t Trainer::parameter_bytes() const {
  std::size_t n = 0;
  for (const framework::Parameter* p : model_.parameters()) n += p->bytes();
  return n;
}

}  // namespace hn::stack::model
