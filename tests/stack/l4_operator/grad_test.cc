// Every backward kernel against central finite differences of its forward
// kernel, in f64: with a random upstream gradient w, the loss
// L(x) = sum(w * f(x)) has dL/dx = the kernel's output. Then the same in f32
// (within f32 rounding of the f64 answer), and the inputs they refuse.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>

#include "stack/l4_operator/registry.h"

using namespace hn::stack::op;

namespace {

Tensor random_tensor(DType t, Shape shape, std::mt19937_64& rng, double scale = 1.0) {
  std::normal_distribution<double> d(0.0, scale);
  Tensor x(t, std::move(shape));
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, d(rng));
  return x;
}

Tensor run(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& a = {}) {
  const Kernel* k = builtin_registry().find(op);
  REQUIRE(k != nullptr);
  return k->run(in, a);
}

double dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) s += a.get(i) * b.get(i);
  return s;
}

// Central differences of loss() with respect to every element of x.
Tensor numeric_grad(Tensor& x, const std::function<double()>& loss) {
  Tensor g(x.dtype(), x.shape());
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const double v = x.get(i), h = 1e-6 * std::max(1.0, std::abs(v));
    x.set(i, v + h);
    const double up = loss();
    x.set(i, v - h);
    const double down = loss();
    x.set(i, v);
    g.set(i, (up - down) / (2 * h));
  }
  return g;
}

void check_close(const Tensor& got, const Tensor& want, double rtol, double atol) {
  REQUIRE(got.shape() == want.shape());
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    INFO("element " << i << ": got " << got.get(i) << ", want " << want.get(i));
    CHECK(std::abs(got.get(i) - want.get(i)) <= atol + rtol * std::abs(want.get(i)));
  }
}

}  // namespace

TEST_CASE("grad: gelu_grad, exact and tanh, matches finite differences") {
  std::mt19937_64 rng(1);
  for (const char* mode : {"none", "tanh"}) {
    INFO(mode);
    Attributes a{{"approximate", std::string(mode)}};
    Tensor x = random_tensor(DType::kF64, {3, 7}, rng, 2.0),
           w = random_tensor(DType::kF64, {3, 7}, rng);
    Tensor got = run("gelu_grad", {&x, &w}, a);
    Tensor want = numeric_grad(x, [&] { return dot(w, run("gelu", {&x}, a)); });
    check_close(got, want, 1e-7, 1e-9);
  }
}

TEST_CASE("grad: softmax_grad from softmax's output matches finite differences") {
  std::mt19937_64 rng(2);
  Tensor x = random_tensor(DType::kF64, {2, 3, 5}, rng, 3.0),
         w = random_tensor(DType::kF64, {2, 3, 5}, rng);
  Tensor y = run("softmax", {&x});
  Tensor got = run("softmax_grad", {&y, &w});
  Tensor want = numeric_grad(x, [&] { return dot(w, run("softmax", {&x})); });
  check_close(got, want, 1e-7, 1e-9);
}

TEST_CASE("grad: layernorm_grad for the input, the scale and the bias") {
  std::mt19937_64 rng(3);
  Tensor x = random_tensor(DType::kF64, {4, 6}, rng, 2.0);
  Tensor scale = random_tensor(DType::kF64, {6}, rng), bias = random_tensor(DType::kF64, {6}, rng);
  Tensor w = random_tensor(DType::kF64, {4, 6}, rng);
  auto loss = [&] { return dot(w, run("layernorm", {&x, &scale, &bias})); };
  auto grad = [&](const char* output) {
    return run("layernorm_grad", {&x, &scale, &w}, {{"output", std::string(output)}});
  };
  check_close(grad("input"), numeric_grad(x, loss), 1e-6, 1e-8);
  check_close(grad("scale"), numeric_grad(scale, loss), 1e-6, 1e-8);
  check_close(grad("bias"), numeric_grad(bias, loss), 1e-6, 1e-8);
  // epsilon is honoured the same way as in the forward.
  Attributes big_eps{{"epsilon", 0.5}, {"output", std::string("input")}};
  auto loss_eps = [&] { return dot(w, run("layernorm", {&x, &scale, &bias}, {{"epsilon", 0.5}})); };
  check_close(run("layernorm_grad", {&x, &scale, &w}, big_eps), numeric_grad(x, loss_eps), 1e-6,
              1e-8);
}

TEST_CASE("grad: cross_entropy_grad is d(mean loss)/d logits") {
  std::mt19937_64 rng(4);
  Tensor logits = random_tensor(DType::kF64, {5, 7}, rng, 2.0);
  for (DType label_type : {DType::kI32, DType::kI64}) {
    Tensor labels = Tensor::from_values(label_type, {5}, {0, 6, 3, 3, 1});
    Tensor got = run("cross_entropy_grad", {&logits, &labels});
    Tensor want = numeric_grad(logits, [&] {
      return run("cross_entropy", {&logits, &labels}).get(0);
    });
    check_close(got, want, 1e-6, 1e-9);
  }
}

TEST_CASE("grad: embedding_grad sums the rows of repeated ids") {
  std::mt19937_64 rng(5);
  Tensor table = random_tensor(DType::kF64, {6, 3}, rng);
  Tensor ids = Tensor::from_values(DType::kI64, {2, 3}, {1, 4, 1, 0, 5, -1});  // -1 is row 5
  Tensor w = random_tensor(DType::kF64, {2, 3, 3}, rng);
  Tensor got = run("embedding_grad", {&w, &ids}, {{"num_embeddings", std::int64_t{6}}});
  Tensor want = numeric_grad(table, [&] { return dot(w, run("embedding", {&table, &ids})); });
  check_close(got, want, 1e-7, 1e-9);
  // Rows no id names get exactly zero.
  for (std::int64_t j = 0; j < 3; ++j) CHECK(got.get(2 * 3 + j) == 0.0);
}

TEST_CASE("grad: f32 agrees with f64 within f32 rounding") {
  std::mt19937_64 rng(6);
  Tensor x64 = random_tensor(DType::kF64, {4, 8}, rng),
         w64 = random_tensor(DType::kF64, {4, 8}, rng);
  Tensor s64 = random_tensor(DType::kF64, {8}, rng);
  auto f32 = [](const Tensor& t) {
    return Tensor::from_values(DType::kF32, t.shape(), t.to_f64());
  };
  Tensor x32 = f32(x64), w32 = f32(w64), s32 = f32(s64);
  check_close(run("gelu_grad", {&x32, &w32}), run("gelu_grad", {&x64, &w64}), 1e-5, 1e-6);
  Tensor y64 = run("softmax", {&x64}), y32 = f32(y64);
  check_close(run("softmax_grad", {&y32, &w32}), run("softmax_grad", {&y64, &w64}), 1e-5, 1e-6);
  check_close(run("layernorm_grad", {&x32, &s32, &w32}), run("layernorm_grad", {&x64, &s64, &w64}),
              1e-4, 1e-5);
}

TEST_CASE("grad: inputs that do not fit are refused by name") {
  const Kernel* lg = builtin_registry().find("layernorm_grad");
  REQUIRE(lg);
  TensorSpec x{DType::kF32, {2, 4}}, s{DType::kF32, {4}}, bad{DType::kF32, {3}};
  CHECK_THROWS_WITH(lg->infer({x, bad, x}, {}), Catch::Contains("scale must be [4], got [3]"));
  CHECK_THROWS_WITH(lg->infer({x, s, x}, {{"output", std::string("gamma")}}),
                    Catch::Contains("output must be input, scale or bias, got gamma"));
  CHECK(lg->infer({x, s, x}, {{"output", std::string("bias")}}).shape == Shape{4});
  const Kernel* eg = builtin_registry().find("embedding_grad");
  TensorSpec dy{DType::kF32, {2, 3, 5}}, ids{DType::kI64, {2, 3}};
  CHECK_THROWS_WITH(eg->infer({dy, ids}, {}), Catch::Contains("needs num_embeddings > 0"));
  CHECK(eg->infer({dy, ids}, {{"num_embeddings", std::int64_t{9}}}).shape == Shape{9, 5});
  CHECK_THROWS_WITH(
      eg->infer({dy, TensorSpec{DType::kI64, {3, 2}}}, {{"num_embeddings", std::int64_t{9}}}),
      Catch::Contains("dy must be ids.shape + [D]"));
  Tensor table(DType::kF32, {2, 5});
  Tensor out_of_range = Tensor::from_values(DType::kI64, {1}, {7});
  Tensor g(DType::kF32, {1, 5});
  CHECK_THROWS_WITH(eg->run({&g, &out_of_range}, {{"num_embeddings", std::int64_t{2}}}),
                    Catch::Contains("id 7 out of range for a table of 2 rows"));
  const Kernel* cg = builtin_registry().find("cross_entropy_grad");
  Tensor logits(DType::kF32, {1, 3});
  Tensor label = Tensor::from_values(DType::kI32, {1}, {3});
  CHECK_THROWS_WITH(cg->run({&logits, &label}, {}), Catch::Contains("label 3 out of range"));
}
