#include "stack/l2_framework/optimizer.h"

#include <cmath>

#include "stack/l4_operator/kernel_util.h"

namespace hn::stack::framework {

Optimizer::Optimizer(OptimizerConfig config, std::vector<Parameter*> params)
    : config_(config), params_(std::move(params)) {
  for (Parameter* p : params_) {
    if (p->exp_avg.numel() != p->value.numel() || p->exp_avg.shape() != p->value.shape())
      p->exp_avg = op::Tensor(p->value.dtype(), p->value.shape());
    if (p->exp_avg_sq.shape() != p->value.shape())
      p->exp_avg_sq = op::Tensor(p->value.dtype(), p->value.shape());
  }
}

void Optimizer::step(StepTimer* timer) {
  auto scope = StepTimer::time(timer, "L2", "optimizer");
  ++steps_;
  const OptimizerConfig c = config_;
  const double bc1 = 1 - std::pow(c.beta1, static_cast<double>(steps_));
  const double bc2 = 1 - std::pow(c.beta2, static_cast<double>(steps_));
  for (Parameter* p : params_) {
    op::detail::with_compute_type(p->value.dtype(), [&]<typename C>() {
      auto w = op::load<C>(p->value), g = op::load<C>(p->grad), m = op::load<C>(p->exp_avg);
      if (c.kind == OptimizerKind::kSgd) {
        for (std::size_t i = 0; i < w.size(); ++i) {
          m[i] = C(c.momentum) * m[i] + g[i];
          w[i] -= C(c.lr) * m[i];
        }
      } else {
        auto v = op::load<C>(p->exp_avg_sq);
        for (std::size_t i = 0; i < w.size(); ++i) {
          m[i] = C(c.beta1) * m[i] + C(1 - c.beta1) * g[i];
          v[i] = C(c.beta2) * v[i] + C(1 - c.beta2) * g[i] * g[i];
          const C mhat = m[i] / C(bc1), vhat = v[i] / C(bc2);
          w[i] -= C(c.lr) * mhat / (std::sqrt(vhat) + C(c.eps));
        }
        op::store(p->exp_avg_sq, v);
      }
      op::store(p->value, w);
      op::store(p->exp_avg, m);
      return 0;
    });
  }
}

}  // namespace hn::stack::framework
