#pragma once
// Expert parallelism: moving tokens to the experts that process them and the
// results back (the dispatch and combine of a mixture-of-experts layer).
// `experts` experts are spread over the ep group in contiguous blocks (rank
// j owns experts j*E/ep .. (j+1)*E/ep - 1).
//
// A Routing is made once per micro-batch and layer, collectively over ep:
// each rank says which expert each of its tokens goes to; the constructor
// exchanges the counts and the expert ids (two all-to-alls). dispatch()
// sends rows of x [tokens, D] to their experts' ranks (one all-to-all) and
// returns, per local expert, the rows it received, in (source rank, token)
// order; combine() is its inverse, returning rows to their tokens' ranks and
// positions. The backward pass uses the same pair with the roles swapped:
// dispatch() the output gradient, combine() the input gradient.
//
// Throws std::invalid_argument for an expert id outside 0..experts-1 (a
// model bug) before any traffic, and what L3 throws.

#include <vector>

#include "stack/l2_framework/process_groups.h"
#include "stack/l4_operator/tensor.h"

namespace hn::stack::framework {

class Routing {
 public:
  Routing(Group& ep, std::vector<int> expert_of_token, int experts);

  int local_experts() const { return local_experts_; }
  int first_local_expert() const { return first_local_; }
  std::vector<op::Tensor> dispatch(const op::Tensor& x);
  op::Tensor combine(const std::vector<op::Tensor>& per_expert);

 private:
  Group& ep_;
  int experts_, local_experts_, first_local_;
  std::size_t tokens_ = 0;
  std::vector<std::size_t> send_order_;  // token index, grouped by destination rank
  std::vector<std::size_t> send_counts_, recv_counts_;
  // For each received row (in arrival order): its local expert and its row
  // in that expert's tensor.
  std::vector<int> recv_expert_;
  std::vector<std::size_t> recv_row_;
  std::vector<std::size_t> expert_rows_;
};

}  // namespace hn::stack::framework
