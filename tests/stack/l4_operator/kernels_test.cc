// Every L4 kernel against a float64 reference implementation, for every dtype
// it registers, on random inputs drawn fresh each run (the seed is printed on
// failure so a run can be repeated).
//
// Tolerances, |got - ref| <= tol * (1 + scale), where scale is the size of
// the terms that went into an element (|a|.|b| for a dot product, 1 for
// normalised outputs):
//   f64  1e-12   double arithmetic
//   f32  2e-5    float accumulation over at most 64 terms
//   f16  2e-3    one rounding to f16 (2^-11 relative) on top of f32 compute
//   bf16 1.6e-2  one rounding to bf16 (2^-8 relative) on top of f32 compute
// The reference reads the inputs as the kernel sees them (already rounded to
// the dtype), so only the kernel's own error is measured.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "stack/l4_operator/registry.h"

using namespace hn::stack::op;

namespace {

std::uint64_t run_seed() {
  static const std::uint64_t seed = std::random_device{}();
  return seed;
}

double tolerance(DType t) {
  switch (t) {
    case DType::kF64:
      return 1e-12;
    case DType::kF32:
      return 2e-5;
    case DType::kF16:
      return 2e-3;
    case DType::kBF16:
      return 1.6e-2;
    default:
      return 0;
  }
}

Tensor random_tensor(DType t, Shape shape, std::mt19937_64& rng, double lo = -2, double hi = 2) {
  std::uniform_real_distribution<double> d(lo, hi);
  Tensor x(t, std::move(shape));
  for (std::int64_t i = 0; i < x.numel(); ++i)
    x.set(i, is_float(t) ? d(rng) : std::floor(d(rng) * 50));
  return x;
}

Tensor run(const std::string& op, std::vector<const Tensor*> in, const Attributes& attrs = {}) {
  const Kernel* k = builtin_registry().find(op);
  REQUIRE(k != nullptr);
  return k->run(in, attrs);
}

void check_close(const Tensor& got, const std::vector<double>& ref,
                 const std::vector<double>& scale, DType t) {
  REQUIRE(got.numel() == static_cast<std::int64_t>(ref.size()));
  for (std::size_t i = 0; i < ref.size(); ++i) {
    double err = std::abs(got.get(static_cast<std::int64_t>(i)) - ref[i]);
    double bound = tolerance(t) * (1 + (scale.empty() ? std::abs(ref[i]) : scale[i]));
    if (err > bound) {
      INFO("seed " << run_seed() << " dtype " << to_string(t) << " element " << i << " got "
                   << got.get(static_cast<std::int64_t>(i)) << " ref " << ref[i]);
      CHECK(err <= bound);
      return;
    }
  }
}

const DType kFloats[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16};

}  // namespace

TEST_CASE("kernels: matmul, 2-D and batched, against float64") {
  std::mt19937_64 rng(run_seed());
  for (DType t : kFloats)
    for (Shape as : {Shape{5, 7}, Shape{1, 64}, Shape{3, 4, 6}, Shape{2, 2, 3, 5}}) {
      const std::int64_t K = as.back(), M = as[as.size() - 2], N = 9;
      bool shared = as.size() == 2 || (as.size() == 3);
      Shape bs = shared ? Shape{K, N} : Shape(as.begin(), as.end() - 2);
      if (!shared) bs.insert(bs.end(), {K, N});
      Tensor a = random_tensor(t, as, rng), b = random_tensor(t, bs, rng);
      Tensor c = run("matmul", {&a, &b});
      auto av = a.to_f64(), bv = b.to_f64();
      const std::int64_t batches = a.numel() / (M * K);
      std::vector<double> ref, scale;
      for (std::int64_t s = 0; s < batches; ++s)
        for (std::int64_t i = 0; i < M; ++i)
          for (std::int64_t j = 0; j < N; ++j) {
            double acc = 0, mag = 0;
            for (std::int64_t k = 0; k < K; ++k) {
              double x = av[s * M * K + i * K + k] * bv[(shared ? 0 : s * K * N) + k * N + j];
              acc += x;
              mag += std::abs(x);
            }
            ref.push_back(acc);
            scale.push_back(mag);
          }
      Shape want(as.begin(), as.end() - 1);
      want.push_back(N);
      CHECK(c.shape() == want);
      check_close(c, ref, scale, t);
    }
}

TEST_CASE("kernels: add and mul broadcast like numpy") {
  std::mt19937_64 rng(run_seed());
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {{{4, 5}, {4, 5}, {4, 5}},
                        {{2, 3, 4}, {4}, {2, 3, 4}},
                        {{3, 1}, {1, 5}, {3, 5}},
                        {{}, {2, 2}, {2, 2}},
                        {{0, 3}, {3}, {0, 3}}};
  for (DType t : kFloats)
    for (const auto& c : cases)
      for (bool mul : {false, true}) {
        Tensor a = random_tensor(t, c.a, rng), b = random_tensor(t, c.b, rng);
        Tensor got = run(mul ? "mul" : "add", {&a, &b});
        REQUIRE(got.shape() == c.out);
        // Reference: index each input with its broadcast coordinates.
        std::vector<double> ref;
        const std::int64_t n = element_count(c.out);
        for (std::int64_t o = 0; o < n; ++o) {
          std::int64_t rem = o, ia = 0, ib = 0, sa = 1, sb = 1;
          for (std::size_t d = c.out.size(); d-- > 0;) {
            std::int64_t coord = rem % c.out[d];
            rem /= c.out[d];
            std::size_t da = d + c.a.size(), db = d + c.b.size();
            if (da >= c.out.size()) {
              std::int64_t dim = c.a[da - c.out.size()];
              ia += (dim == 1 ? 0 : coord) * sa;
              sa *= dim;
            }
            if (db >= c.out.size()) {
              std::int64_t dim = c.b[db - c.out.size()];
              ib += (dim == 1 ? 0 : coord) * sb;
              sb *= dim;
            }
          }
          ref.push_back(mul ? a.get(ia) * b.get(ib) : a.get(ia) + b.get(ib));
        }
        check_close(got, ref, {}, t);
      }
}

TEST_CASE("kernels: relu and gelu (exact and tanh)") {
  std::mt19937_64 rng(run_seed());
  for (DType t : kFloats) {
    Tensor x = random_tensor(t, {3, 17}, rng, -4, 4);
    auto xv = x.to_f64();
    std::vector<double> relu, exact, approx;
    for (double v : xv) {
      relu.push_back(v > 0 ? v : 0);
      exact.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
      approx.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    }
    check_close(run("relu", {&x}), relu, {}, t);
    check_close(run("gelu", {&x}), exact, {}, t);
    check_close(run("gelu", {&x}, {{"approximate", std::string("tanh")}}), approx, {}, t);
  }
}

TEST_CASE("kernels: softmax over the last axis, also for large logits") {
  std::mt19937_64 rng(run_seed());
  for (DType t : kFloats)
    for (double offset : {0.0, 80.0}) {
      Tensor x = random_tensor(t, {4, 3, 11}, rng, offset - 5, offset + 5);
      auto xv = x.to_f64();
      std::vector<double> ref(xv.size());
      for (std::size_t r = 0; r < xv.size() / 11; ++r) {
        double m = -INFINITY, sum = 0;
        for (int j = 0; j < 11; ++j) m = std::max(m, xv[r * 11 + j]);
        for (int j = 0; j < 11; ++j) sum += std::exp(xv[r * 11 + j] - m);
        for (int j = 0; j < 11; ++j) ref[r * 11 + j] = std::exp(xv[r * 11 + j] - m) / sum;
      }
      check_close(run("softmax", {&x}), ref, std::vector<double>(ref.size(), 1.0), t);
    }
}

TEST_CASE("kernels: layernorm with scale and optional bias") {
  std::mt19937_64 rng(run_seed());
  for (DType t : kFloats)
    for (bool bias : {false, true}) {
      const int D = 24;
      Tensor x = random_tensor(t, {5, D}, rng), g = random_tensor(t, {D}, rng),
             b = random_tensor(t, {D}, rng);
      auto xv = x.to_f64(), gv = g.to_f64(), bv = b.to_f64();
      std::vector<double> ref, scale;
      for (int r = 0; r < 5; ++r) {
        double mean = 0, var = 0;
        for (int j = 0; j < D; ++j) mean += xv[r * D + j] / D;
        for (int j = 0; j < D; ++j) var += (xv[r * D + j] - mean) * (xv[r * D + j] - mean) / D;
        for (int j = 0; j < D; ++j) {
          double n = (xv[r * D + j] - mean) / std::sqrt(var + 1e-5);
          ref.push_back(n * gv[j] + (bias ? bv[j] : 0));
          scale.push_back(std::abs(n * gv[j]) + 1);
        }
      }
      std::vector<const Tensor*> in = {&x, &g};
      if (bias) in.push_back(&b);
      check_close(run("layernorm", in), ref, scale, t);
    }
}

TEST_CASE("kernels: embedding gathers rows, negative ids from the end, out of range throws") {
  std::mt19937_64 rng(run_seed());
  for (DType t : kFloats)
    for (DType it : {DType::kI32, DType::kI64}) {
      Tensor table = random_tensor(t, {10, 6}, rng);
      Tensor ids = Tensor::from_values(it, {2, 3}, {0, 9, -1, 4, 4, 7});
      Tensor out = run("embedding", {&table, &ids});
      REQUIRE(out.shape() == Shape{2, 3, 6});
      const int rows[] = {0, 9, 9, 4, 4, 7};
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) CHECK(out.get(i * 6 + j) == table.get(rows[i] * 6 + j));
      Tensor bad = Tensor::from_values(it, {1}, {10});
      CHECK_THROWS_AS(run("embedding", {&table, &bad}), ShapeError);
    }
}

TEST_CASE("kernels: cross_entropy is the mean of -log softmax at the label") {
  std::mt19937_64 rng(run_seed());
  for (DType t : kFloats) {
    const int N = 7, C = 13;
    Tensor logits = random_tensor(t, {N, C}, rng, -6, 6);
    std::uniform_int_distribution<int> label(0, C - 1);
    std::vector<double> lv;
    for (int i = 0; i < N; ++i) lv.push_back(label(rng));
    Tensor labels = Tensor::from_values(DType::kI64, {N}, lv);
    auto x = logits.to_f64();
    double total = 0;
    for (int i = 0; i < N; ++i) {
      double m = -INFINITY, sum = 0;
      for (int j = 0; j < C; ++j) m = std::max(m, x[i * C + j]);
      for (int j = 0; j < C; ++j) sum += std::exp(x[i * C + j] - m);
      total += std::log(sum) + m - x[i * C + static_cast<int>(lv[i])];
    }
    Tensor out = run("cross_entropy", {&logits, &labels});
    CHECK(out.shape().empty());
    check_close(out, {total / N}, {8.0}, t);
    Tensor bad = Tensor::from_values(DType::kI64, {N}, std::vector<double>(N, C));
    CHECK_THROWS_AS(run("cross_entropy", {&logits, &bad}), ShapeError);
  }
}

TEST_CASE("kernels: transpose and reshape move every dtype exactly") {
  std::mt19937_64 rng(run_seed());
  for (DType t : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kI64}) {
    Tensor x = random_tensor(t, {2, 3, 4}, rng);
    Tensor y = run("transpose", {&x}, {{"perm", std::vector<std::int64_t>{2, 0, 1}}});
    REQUIRE(y.shape() == Shape{4, 2, 3});
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) CHECK(y.get(k * 6 + i * 3 + j) == x.get(i * 12 + j * 4 + k));
    Tensor r = run("transpose", {&x});  // default: reversed axes
    CHECK(r.shape() == Shape{4, 3, 2});
    Tensor z = run("reshape", {&x}, {{"shape", std::vector<std::int64_t>{0, -1}}});
    REQUIRE(z.shape() == Shape{2, 12});
    CHECK(z.to_f64() == x.to_f64());
    CHECK_THROWS_AS(run("reshape", {&x}, {{"shape", std::vector<std::int64_t>{5, -1}}}),
                    ShapeError);
    CHECK_THROWS_AS(run("transpose", {&x}, {{"perm", std::vector<std::int64_t>{0, 0, 1}}}),
                    ShapeError);
  }
}

TEST_CASE("kernels: sum, prod, min, max, avg over N inputs, halves accumulate in f32") {
  std::mt19937_64 rng(run_seed());
  for (DType t : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kI64})
    for (int n : {1, 2, 5}) {
      std::vector<Tensor> xs;
      for (int i = 0; i < n; ++i) xs.push_back(random_tensor(t, {3, 7}, rng, -1.5, 1.5));
      std::vector<const Tensor*> in;
      for (auto& x : xs) in.push_back(&x);
      for (const char* op : {"sum", "prod", "min", "max", "avg"}) {
        std::vector<double> ref, scale;
        for (std::int64_t e = 0; e < 21; ++e) {
          double acc = xs[0].get(e), mag = std::abs(acc);
          for (int i = 1; i < n; ++i) {
            double v = xs[i].get(e);
            std::string o = op;
            acc = o == "sum" || o == "avg" ? acc + v
                  : o == "prod"            ? acc * v
                  : o == "min"             ? std::min(acc, v)
                                           : std::max(acc, v);
            mag += std::abs(v);
          }
          if (std::string(op) == "avg") acc = is_float(t) ? acc / n : std::trunc(acc / n);
          ref.push_back(acc);
          scale.push_back(mag);
        }
        Tensor got = run(op, in);
        if (!is_float(t)) {
          INFO(op << " " << to_string(t) << " n=" << n);
          CHECK(got.to_f64() == ref);  // integers: exact
        } else {
          check_close(got, ref, scale, t);
        }
      }
    }
}
