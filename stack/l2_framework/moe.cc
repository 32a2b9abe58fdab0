#include "stack/l2_framework/moe.h"

#include <cstring>
#include <stdexcept>

namespace hn::stack::framework {

Routing::Routing(Group& ep, std::vector<int> expert_of_token, int experts)
    : ep_(ep), experts_(experts), tokens_(expert_of_token.size()) {
  const int n = ep.size();
  if (experts < 1 || experts % n != 0)
    throw std::invalid_argument("moe: " + std::to_string(experts) + " experts do not divide over " +
                                std::to_string(n) + " expert-parallel ranks");
  local_experts_ = experts / n;
  first_local_ = ep.rank() * local_experts_;
  const auto un = static_cast<std::size_t>(n);
  send_counts_.assign(un, 0);
  for (int e : expert_of_token) {
    if (e < 0 || e >= experts)
      throw std::invalid_argument("moe: expert " + std::to_string(e) + " is outside 0.." +
                                  std::to_string(experts - 1));
    ++send_counts_[static_cast<std::size_t>(e / local_experts_)];
  }
  // Stable grouping by destination: token order within each destination.
  std::vector<std::size_t> offset(un, 0);
  for (std::size_t r = 1; r < un; ++r) offset[r] = offset[r - 1] + send_counts_[r - 1];
  send_order_.resize(tokens_);
  std::vector<std::int64_t> send_ids(tokens_);
  for (std::size_t t = 0; t < tokens_; ++t) {
    const int e = expert_of_token[t];
    const std::size_t at = offset[static_cast<std::size_t>(e / local_experts_)]++;
    send_order_[at] = t;
    send_ids[at] = e;
  }
  std::vector<std::int64_t> counts(send_counts_.begin(), send_counts_.end());
  std::vector<std::int64_t> got = ep.alltoall_counts(counts);
  recv_counts_.assign(got.begin(), got.end());
  std::vector<std::byte> ids =
      ep.alltoallv(send_ids.data(), op::DType::kI64, send_counts_, recv_counts_);
  const std::size_t received = ids.size() / sizeof(std::int64_t);
  expert_rows_.assign(static_cast<std::size_t>(local_experts_), 0);
  recv_expert_.resize(received);
  recv_row_.resize(received);
  for (std::size_t i = 0; i < received; ++i) {
    std::int64_t e;
    std::memcpy(&e, ids.data() + i * sizeof e, sizeof e);
    const int local = static_cast<int>(e) - first_local_;
    if (local < 0 || local >= local_experts_)
      throw std::runtime_error("moe: rank " + std::to_string(ep.rank()) +
                               " received a token for expert " + std::to_string(e) +
                               ", which it does not hold");
    recv_expert_[i] = local;
    recv_row_[i] = expert_rows_[static_cast<std::size_t>(local)]++;
  }
}

std::vector<op::Tensor> Routing::dispatch(const op::Tensor& x) {
  if (x.rank() != 2 || static_cast<std::size_t>(x.shape()[0]) != tokens_)
    throw std::invalid_argument("moe dispatch: expected [" + std::to_string(tokens_) +
                                ", D], got " + op::to_string(x.shape()));
  const auto D = static_cast<std::size_t>(x.shape()[1]);
  const std::size_t row = D * op::dtype_size(x.dtype());
  std::vector<std::byte> packed(tokens_ * row);
  const auto* src = static_cast<const std::byte*>(x.data());
  for (std::size_t i = 0; i < tokens_; ++i)
    std::memcpy(packed.data() + i * row, src + send_order_[i] * row, row);
  std::vector<std::size_t> sc(send_counts_), rc(recv_counts_);
  for (auto& c : sc) c *= D;
  for (auto& c : rc) c *= D;
  std::vector<std::byte> got = ep_.alltoallv(packed.data(), x.dtype(), sc, rc);
  std::vector<op::Tensor> out;
  for (int e = 0; e < local_experts_; ++e)
    out.emplace_back(x.dtype(),
                     op::Shape{static_cast<std::int64_t>(expert_rows_[static_cast<std::size_t>(e)]),
                               static_cast<std::int64_t>(D)});
  for (std::size_t i = 0; i < recv_expert_.size(); ++i)
    std::memcpy(static_cast<std::byte*>(out[static_cast<std::size_t>(recv_expert_[i])].data()) +
                    recv_row_[i] * row,
                got.data() + i * row, row);
  return out;
}

op::Tensor Routing::combine(const std::vector<op::Tensor>& per_expert) {
  if (per_expert.size() != static_cast<std::size_t>(local_experts_))
    throw std::invalid_argument("moe combine: expected one tensor per local expert");
  const op::Tensor& any = per_expert.front();
  const auto D = static_cast<std::size_t>(any.shape().back());
  const std::size_t row = D * op::dtype_size(any.dtype());
  std::vector<std::byte> packed(recv_expert_.size() * row);
  for (std::size_t i = 0; i < recv_expert_.size(); ++i) {
    const op::Tensor& t = per_expert[static_cast<std::size_t>(recv_expert_[i])];
    std::memcpy(packed.data() + i * row,
                static_cast<const std::byte*>(t.data()) + recv_row_[i] * row, row);
  }
  std::vector<std::size_t> sc(recv_counts_), rc(send_counts_);
  for (auto& c : sc) c *= D;
  for (auto& c : rc) c *= D;
  std::vector<std::byte> got = ep_.alltoallv(packed.data(), any.dtype(), sc, rc);
  op::Tensor out(any.dtype(), {static_cast<std::int64_t>(tokens_), static_cast<std::int64_t>(D)});
  auto* dst = static_cast<std::byte*>(out.data());
  for (std::size_t i = 0; i < tokens_; ++i)
    std::memcpy(dst + send_order_[i] * row, got.data() + i * row, row);
  return out;
}

}  // namespace hn::stack::framework
