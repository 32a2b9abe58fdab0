#pragma once
// Data-parallel gradient reduction, bucketed and issued as soon as a bucket
// is ready (DDP / Megatron's DistributedDataParallel): parameters are packed,
// in the order their gradients become final during backward, into buckets of
// at most `bucket_bytes` holding one kind of parameter. The model calls
// mark_ready() once per parameter per step, after the last micro-batch's
// backward has accumulated its gradient; a bucket whose parameters are all
// ready is reduced at once (buckets go strictly in order, so every replica
// issues the same collectives in the same order), while the backward of the
// layers before it is still to come.
//
// Reduction: a sequence-parallel bucket is first summed over tp (each tp
// rank saw a different part of the tokens), then every bucket is summed
// over its replicas: dp for dense parameters, expert-dp for experts (each
// expert already saw the tokens of its ep peers). The sum uses L3's ring,
// whose result every member receives bit for bit, so replicas stay
// identical. The model scales the loss so that the sum is the mean.
//
// finish() throws std::logic_error naming a parameter that never became
// ready (a model bug that would leave replicas diverging silently).

#include <cstddef>
#include <vector>

#include "stack/l2_framework/parameter.h"
#include "stack/l2_framework/process_groups.h"

namespace hn::stack::framework {

struct GradSyncOptions {
  std::size_t bucket_bytes = 32 << 10;
  // Fault injection for tests (the model phase's mutation tests must catch
  // each), applied on every rank alike, as a bug in the framework would be:
  // skip the replica reduction (each replica steps on its own gradients);
  bool skip_data_parallel = false;
  // multiply every reduced gradient by this (a repeated or missing
  // reduction, a wrong average);
  double fault_scale = 1.0;
  // negate the first element of the first bucket after its reduction;
  bool fault_negate_one = false;
  // leave bucket k unreduced over the replicas (a bucket dropped from the
  // reduction); -1: none.
  int fault_drop_bucket = -1;
};

class GradSync {
 public:
  GradSync(std::vector<Parameter*> backward_order, ProcessGroups& groups, GradSyncOptions options);

  void start_step();
  void mark_ready(const Parameter* p);
  void finish();
  std::size_t bucket_count() const { return buckets_.size(); }

 private:
  struct Bucket {
    std::vector<Parameter*> params;
    Replicas replicas = Replicas::kData;
    bool sequence_parallel = false;
    std::size_t bytes = 0;
    std::size_t ready = 0;
    bool reduced = false;
  };
  void reduce(Bucket& b);

  ProcessGroups& groups_;
  GradSyncOptions options_;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucket_of_;  // by position in backward order
  std::vector<Parameter*> order_;
  std::vector<bool> marked_;
  std::size_t next_ = 0;  // first bucket not yet reduced
};

}  // namespace hn::stack::framework
