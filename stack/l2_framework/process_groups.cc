#include "stack/l2_framework/process_groups.h"

#include <cstring>
#include <stdexcept>

#include "stack/l3_comm/collectives.h"
#include "stack/l3_comm/split.h"

namespace hn::stack::framework {

namespace {

comm::Options options(op::DType t, op::ReduceOp o = op::ReduceOp::kSum) {
  comm::Options opt;
  opt.dtype = t;
  opt.op = o;
  return opt;
}

std::size_t bytes_of(const op::Tensor& t) {
  return static_cast<std::size_t>(t.numel()) * op::dtype_size(t.dtype());
}

}  // namespace

StepTimer::Scope Group::scope(const char* kind, std::uint64_t bytes) {
  return StepTimer::time(size() > 1 ? timer_ : nullptr, "L3", std::string(kind) + " " + name_,
                         bytes);
}

void Group::allreduce(op::Tensor& t, op::ReduceOp o) {
  auto s = scope("allreduce", bytes_of(t));
  comm::Options opt = options(t.dtype(), o);
  opt.algorithm = comm::Algorithm::kRing;
  comm::allreduce(*comm_, t.data(), t.data(), static_cast<std::size_t>(t.numel()), opt);
}

op::Tensor Group::allgather(const op::Tensor& shard) {
  if (shard.rank() == 0) throw std::invalid_argument("allgather " + name_ + ": needs rank >= 1");
  op::Shape shape = shard.shape();
  shape[0] *= size();
  op::Tensor full(shard.dtype(), shape);
  auto s = scope("allgather", bytes_of(shard));
  comm::allgather(*comm_, shard.data(), full.data(), static_cast<std::size_t>(shard.numel()),
                  options(shard.dtype()));
  return full;
}

op::Tensor Group::reduce_scatter(const op::Tensor& full) {
  if (full.rank() == 0 || full.shape()[0] % size() != 0)
    throw std::invalid_argument("reduce_scatter " + name_ + ": dim 0 of " +
                                op::to_string(full.shape()) + " does not divide by " +
                                std::to_string(size()));
  op::Shape shape = full.shape();
  shape[0] /= size();
  op::Tensor shard(full.dtype(), shape);
  auto s = scope("reduce_scatter", bytes_of(full) - bytes_of(shard));
  comm::reduce_scatter(*comm_, full.data(), shard.data(), static_cast<std::size_t>(shard.numel()),
                       options(full.dtype()));
  return shard;
}

std::vector<std::byte> Group::alltoallv(const void* send, op::DType t,
                                        const std::vector<std::size_t>& send_counts,
                                        const std::vector<std::size_t>& recv_counts) {
  const auto n = static_cast<std::size_t>(size());
  std::vector<std::size_t> sd(n), rd(n);
  std::size_t total_send = 0, total_recv = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sd[i] = total_send;
    rd[i] = total_recv;
    total_send += send_counts.at(i);
    total_recv += recv_counts.at(i);
  }
  std::vector<std::byte> recv(total_recv * op::dtype_size(t));
  const std::uint64_t sent =
      (total_send - send_counts[static_cast<std::size_t>(rank())]) * op::dtype_size(t);
  auto s = scope("alltoall", sent);
  comm::alltoallv(*comm_, send, send_counts, sd, recv.data(), recv_counts, rd, options(t));
  return recv;
}

std::vector<std::int64_t> Group::alltoall_counts(const std::vector<std::int64_t>& counts) {
  std::vector<std::int64_t> out(counts.size());
  auto s = scope("alltoall", (counts.size() - 1) * sizeof(std::int64_t));
  comm::alltoall(*comm_, counts.data(), out.data(), 1, options(op::DType::kI64));
  return out;
}

void Group::sendrecv(const op::Tensor* out, int to, op::Tensor* in, int from) {
  auto s = scope("send/recv", out && to >= 0 ? bytes_of(*out) : 0);
  const comm::Options opt = options(out ? out->dtype() : in->dtype());
  if (out && to >= 0 && in && from >= 0 && bytes_of(*out) == bytes_of(*in)) {
    comm::sendrecv(*comm_, out->data(), to, in->data(), from,
                   static_cast<std::size_t>(out->numel()), opt);
    return;
  }
  if (out && to >= 0)
    comm::send(*comm_, out->data(), static_cast<std::size_t>(out->numel()), to, opt);
  if (in && from >= 0)
    comm::recv(*comm_, in->data(), static_cast<std::size_t>(in->numel()), from, opt);
}

void Group::broadcast(op::Tensor& t, int root) {
  auto s = scope("broadcast", rank() == root ? bytes_of(t) : 0);
  comm::Options opt = options(t.dtype());
  opt.root = root;
  comm::broadcast(*comm_, t.data(), static_cast<std::size_t>(t.numel()), opt);
}

void Group::barrier() {
  auto s = scope("barrier", 0);
  comm::barrier(*comm_);
}

ProcessGroups ProcessGroups::create(comm::Communicator& world, const Layout& layout,
                                    StepTimer* timer, const GroupLinks& links) {
  layout.fits(world.size());
  ProcessGroups g;
  g.layout = layout;
  g.world_rank = world.rank();
  g.coords = layout.coords(world.rank());
  auto make = [&](GroupKind k) {
    const std::string name(to_string(k));
    auto own = links.find(k);
    auto c = comm::split(world, layout.group_index(k, world.rank()), world.rank(), name,
                         own == links.end() ? nullptr : &own->second);
    return std::make_unique<Group>(std::move(c), name, timer);
  };
  g.tp = make(GroupKind::kTensor);
  g.pp = make(GroupKind::kPipeline);
  g.dp = make(GroupKind::kData);
  g.ep = make(GroupKind::kExpert);
  g.expert_dp = make(GroupKind::kExpertData);
  return g;
}

void ProcessGroups::set_timer(StepTimer* t) {
  for (Group* g : {tp.get(), pp.get(), dp.get(), ep.get(), expert_dp.get()}) g->set_timer(t);
}

}  // namespace hn::stack::framework
