#include "stack/l2_framework/grad_sync.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace hn::stack::framework {

GradSync::GradSync(std::vector<Parameter*> backward_order, ProcessGroups& groups,
                   GradSyncOptions options)
    : groups_(groups), options_(options), order_(std::move(backward_order)) {
  for (Parameter* p : order_) {
    const bool fits = !buckets_.empty() && buckets_.back().replicas == p->replicas &&
                      buckets_.back().sequence_parallel == p->sequence_parallel &&
                      buckets_.back().bytes + p->bytes() <= options_.bucket_bytes;
    if (!fits) {
      buckets_.emplace_back();
      buckets_.back().replicas = p->replicas;
      buckets_.back().sequence_parallel = p->sequence_parallel;
    }
    buckets_.back().params.push_back(p);
    buckets_.back().bytes += p->bytes();
    bucket_of_.push_back(buckets_.size() - 1);
  }
  marked_.assign(order_.size(), false);
}

void GradSync::start_step() {
  for (auto& b : buckets_) {
    b.ready = 0;
    b.reduced = false;
  }
  marked_.assign(order_.size(), false);
  next_ = 0;
}

void GradSync::mark_ready(const Parameter* p) {
  auto it = std::find(order_.begin(), order_.end(), p);
  if (it == order_.end()) throw std::logic_error("grad sync: " + p->name + " is not registered");
  const auto i = static_cast<std::size_t>(it - order_.begin());
  if (marked_[i]) throw std::logic_error("grad sync: " + p->name + " marked ready twice");
  marked_[i] = true;
  ++buckets_[bucket_of_[i]].ready;
  while (next_ < buckets_.size() && buckets_[next_].ready == buckets_[next_].params.size()) {
    reduce(buckets_[next_]);
    ++next_;
  }
}

void GradSync::finish() {
  for (std::size_t i = 0; i < order_.size(); ++i)
    if (!marked_[i])
      throw std::logic_error("grad sync: the gradient of " + order_[i]->name +
                             " never became ready this step");
}

void GradSync::reduce(Bucket& b) {
  Group& replicas = b.replicas == Replicas::kData ? *groups_.dp : *groups_.expert_dp;
  const bool over_tp = b.sequence_parallel && groups_.tp->size() > 1;
  const bool dropped = options_.fault_drop_bucket >= 0 &&
                       &b == &buckets_[static_cast<std::size_t>(options_.fault_drop_bucket) %
                                       buckets_.size()];
  const bool over_replicas = replicas.size() > 1 && !options_.skip_data_parallel && !dropped;
  const bool faulty = options_.fault_scale != 1.0 || (options_.fault_negate_one && &b == &buckets_[0]);
  b.reduced = true;
  if (!over_tp && !over_replicas && !faulty) return;
  // One flat buffer per bucket: one collective instead of one per tensor.
  const op::DType t = b.params.front()->grad.dtype();
  op::Tensor flat(t, {static_cast<std::int64_t>(b.bytes / op::dtype_size(t))});
  auto* dst = static_cast<std::byte*>(flat.data());
  for (Parameter* p : b.params) {
    std::memcpy(dst, p->grad.data(), p->bytes());
    dst += p->bytes();
  }
  if (over_tp) groups_.tp->allreduce(flat);
  if (over_replicas) replicas.allreduce(flat);
  if (options_.fault_scale != 1.0)
    for (std::int64_t i = 0; i < flat.numel(); ++i) flat.set(i, flat.get(i) * options_.fault_scale);
  if (options_.fault_negate_one && &b == &buckets_[0]) flat.set(0, -flat.get(0));
  const auto* src = static_cast<const std::byte*>(flat.data());
  for (Parameter* p : b.params) {
    std::memcpy(p->grad.data(), src, p->bytes());
    src += p->bytes();
  }
}

}  // namespace hn::stack::framework
