#pragma once
// A layout's process groups as L3 sub-communicators, and the timed
// collectives the framework calls on them.
//
// ProcessGroups::create() is collective over the world: every rank calls it
// with the same layout. It checks that the layout fits the world
// (LayoutError, before any traffic) and splits the world once per group
// kind (comm::split, Megatron's groups, layout.h). The groups borrow the
// world's links, or make their own on a kind's plane (GroupLinks); either
// way they live no longer than the world communicator.
//
// Group wraps one sub-communicator with the step timer: every collective is
// an L3 row of the step-time table, "<kind> <group>" ("allgather tp"), with
// the bytes this rank sent. A group of one rank moves nothing (and times
// nothing). Collectives throw what L3 throws (TimeoutError, PeerDiedError
// naming the rank of the world) within the world's timeout.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stack/l2_framework/layout.h"
#include "stack/l2_framework/step_time.h"
#include "stack/l3_comm/communicator.h"
#include "stack/l4_operator/tensor.h"

namespace hn::stack::framework {

class Group {
 public:
  Group(std::unique_ptr<comm::Communicator> comm, std::string name, StepTimer* timer)
      : comm_(std::move(comm)), name_(std::move(name)), timer_(timer) {}

  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }
  const std::string& name() const { return name_; }
  // Members as ranks of the world, in group order.
  const std::vector<int>& world_ranks() const { return comm_->parent_ranks(); }
  comm::Communicator& comm() { return *comm_; }
  void set_timer(StepTimer* t) { timer_ = t; }

  // In place; sum unless op says otherwise. Fixed algorithm (ring): every
  // member gets the bits one member computed, so replicas stay identical.
  void allreduce(op::Tensor& t, op::ReduceOp op = op::ReduceOp::kSum);
  // Concatenates every member's tensor along dim 0 (member order).
  op::Tensor allgather(const op::Tensor& shard);
  // Sums full over members and returns this member's block of dim 0
  // (full.shape[0] must divide by size()).
  op::Tensor reduce_scatter(const op::Tensor& full);
  // Elements (of t's dtype) counts per member; returns what each member sent
  // us, concatenated in member order.
  std::vector<std::byte> alltoallv(const void* send, op::DType t,
                                   const std::vector<std::size_t>& send_counts,
                                   const std::vector<std::size_t>& recv_counts);
  std::vector<std::int64_t> alltoall_counts(const std::vector<std::int64_t>& counts);
  // Pipeline exchange: sends `out` to `to` while receiving `in` from `from`
  // (either may be -1: send only, receive only).
  void sendrecv(const op::Tensor* out, int to, op::Tensor* in, int from);
  void broadcast(op::Tensor& t, int root);
  void barrier();

 private:
  StepTimer::Scope scope(const char* kind, std::uint64_t bytes);

  std::unique_ptr<comm::Communicator> comm_;
  std::string name_;
  StepTimer* timer_;
};

// Links of their own for some group kinds: that kind's traffic on a plane
// of its own (comm::split's own_links); the others borrow the world's links.
using GroupLinks = std::map<GroupKind, comm::LinkParams>;

struct ProcessGroups {
  Layout layout;
  Coords coords;
  int world_rank = 0;
  std::unique_ptr<Group> tp, pp, dp, ep, expert_dp;

  static ProcessGroups create(comm::Communicator& world, const Layout& layout, StepTimer* timer,
                              const GroupLinks& links = {});
  void set_timer(StepTimer* t);
};

}  // namespace hn::stack::framework
