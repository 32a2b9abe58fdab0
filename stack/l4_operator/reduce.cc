#include "stack/l4_operator/reduce.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stack/l4_operator/half.h"

namespace hn::stack::op {

namespace {

template <typename T>
struct Sum {
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;  // wrap without UB
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};
template <typename T>
struct Prod {
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
};
template <typename T>
struct Min {
  static T apply(T a, T b) { return b < a ? b : a; }
};
template <typename T>
struct Max {
  static T apply(T a, T b) { return a < b ? b : a; }
};

// Everything below is force-inlined into the two exported entry points, which
// are compiled twice (target_clones): AVX2 where the CPU has it, baseline
// x86-64 otherwise; the dynamic loader picks once per process.
#define HN_INLINE __attribute__((always_inline)) inline

template <typename T, template <typename> class Op>
HN_INLINE void loop(T* __restrict dst, const T* __restrict a, const T* __restrict b,
                    std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = Op<T>::apply(a[i], b[i]);
}

// In-place variant: dst aliases a, so no __restrict on it.
template <typename T, template <typename> class Op>
HN_INLINE void loop_inplace(T* dst, const T* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = Op<T>::apply(dst[i], src[i]);
}

template <float (*Load)(std::uint16_t), std::uint16_t (*Store)(float), template <typename> class Op>
HN_INLINE void loop16(std::uint16_t* dst, const std::uint16_t* a, const std::uint16_t* b,
                      std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = Store(Op<float>::apply(Load(a[i]), Load(b[i])));
}

template <template <typename> class Op>
HN_INLINE void dispatch_type(DType type, void* dst, const void* a, const void* b, std::size_t n) {
  switch (type) {
    case DType::kF32:
      if (dst == a)
        loop_inplace<float, Op>(static_cast<float*>(dst), static_cast<const float*>(b), n);
      else
        loop<float, Op>(static_cast<float*>(dst), static_cast<const float*>(a),
                        static_cast<const float*>(b), n);
      return;
    case DType::kF64:
      if (dst == a)
        loop_inplace<double, Op>(static_cast<double*>(dst), static_cast<const double*>(b), n);
      else
        loop<double, Op>(static_cast<double*>(dst), static_cast<const double*>(a),
                         static_cast<const double*>(b), n);
      return;
    case DType::kI32:
      if (dst == a)
        loop_inplace<std::int32_t, Op>(static_cast<std::int32_t*>(dst),
                                       static_cast<const std::int32_t*>(b), n);
      else
        loop<std::int32_t, Op>(static_cast<std::int32_t*>(dst), static_cast<const std::int32_t*>(a),
                               static_cast<const std::int32_t*>(b), n);
      return;
    case DType::kI64:
      if (dst == a)
        loop_inplace<std::int64_t, Op>(static_cast<std::int64_t*>(dst),
                                       static_cast<const std::int64_t*>(b), n);
      else
        loop<std::int64_t, Op>(static_cast<std::int64_t*>(dst), static_cast<const std::int64_t*>(a),
                               static_cast<const std::int64_t*>(b), n);
      return;
    case DType::kF16:
      loop16<f16_to_f32, f32_to_f16, Op>(static_cast<std::uint16_t*>(dst),
                                         static_cast<const std::uint16_t*>(a),
                                         static_cast<const std::uint16_t*>(b), n);
      return;
    case DType::kBF16:
      loop16<bf16_to_f32, f32_to_bf16, Op>(static_cast<std::uint16_t*>(dst),
                                           static_cast<const std::uint16_t*>(a),
                                           static_cast<const std::uint16_t*>(b), n);
      return;
  }
}

template <typename T>
HN_INLINE void divide(T* buf, std::size_t n, int k) {
  for (std::size_t i = 0; i < n; ++i) buf[i] = static_cast<T>(buf[i] / static_cast<T>(k));
}

template <float (*Load)(std::uint16_t), std::uint16_t (*Store)(float)>
HN_INLINE void divide16(std::uint16_t* buf, std::size_t n, int k) {
  float inv = 1.0f / static_cast<float>(k);
  for (std::size_t i = 0; i < n; ++i) buf[i] = Store(Load(buf[i]) * inv);
}

}  // namespace

#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define HN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HN_CLONES
#endif

HN_CLONES void reduce_to(DType type, ReduceOp op, void* dst, const void* a, const void* b,
                         std::size_t count) {
  if (count == 0) return;
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      dispatch_type<Sum>(type, dst, a, b, count);
      return;
    case ReduceOp::kProd:
      dispatch_type<Prod>(type, dst, a, b, count);
      return;
    case ReduceOp::kMin:
      dispatch_type<Min>(type, dst, a, b, count);
      return;
    case ReduceOp::kMax:
      dispatch_type<Max>(type, dst, a, b, count);
      return;
  }
}

void reduce_into(DType type, ReduceOp op, void* dst, const void* src, std::size_t count) {
  reduce_to(type, op, dst, dst, src, count);
}

// no-tree-loop-distribute-patterns: GCC would turn the loop back into memcpy.
__attribute__((optimize("no-tree-loop-distribute-patterns"))) HN_CLONES void copy_bytes(
    void* dst, const void* src, std::size_t n) {
  // 32-byte vectors: one ymm register with AVX2, two xmm without.
  using V = unsigned char __attribute__((vector_size(32)));
  using VU = unsigned char __attribute__((vector_size(32), aligned(1)));
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (n < 4096) {  // below glibc's rep movsb threshold its vector path is as fast
    std::memcpy(d, s, n);
    return;
  }
  // One unaligned 64-byte block, then aligned stores from the next boundary.
  const std::size_t head = 64 - (reinterpret_cast<std::uintptr_t>(d) & 63);
  std::memcpy(d, s, 64);
  d += head;
  s += head;
  n -= head;
  for (; n >= 128; n -= 128, d += 128, s += 128) {
    const V a = *reinterpret_cast<const VU*>(s), b = *reinterpret_cast<const VU*>(s + 32),
            c = *reinterpret_cast<const VU*>(s + 64), e = *reinterpret_cast<const VU*>(s + 96);
    *reinterpret_cast<V*>(d) = a;
    *reinterpret_cast<V*>(d + 32) = b;
    *reinterpret_cast<V*>(d + 64) = c;
    *reinterpret_cast<V*>(d + 96) = e;
  }
  std::memcpy(d, s, n);
}

HN_CLONES void finalize_avg(DType type, void* buf, std::size_t count, int contributors) {
  if (count == 0 || contributors <= 1) return;
  switch (type) {
    case DType::kF32:
      divide(static_cast<float*>(buf), count, contributors);
      return;
    case DType::kF64:
      divide(static_cast<double*>(buf), count, contributors);
      return;
    case DType::kI32:
      divide(static_cast<std::int32_t*>(buf), count, contributors);
      return;
    case DType::kI64:
      divide(static_cast<std::int64_t*>(buf), count, contributors);
      return;
    case DType::kF16:
      divide16<f16_to_f32, f32_to_f16>(static_cast<std::uint16_t*>(buf), count, contributors);
      return;
    case DType::kBF16:
      divide16<bf16_to_f32, f32_to_bf16>(static_cast<std::uint16_t*>(buf), count, contributors);
      return;
  }
}

}  // namespace hn::stack::op
