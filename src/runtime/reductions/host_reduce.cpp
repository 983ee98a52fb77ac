// Host reductions. Blocks of a fixed size are reduced in parallel by the
// backend's host workers and combined in block order: deterministic, and
// memory-bound (host_reduce_loops.hpp has the vectorized loops over a block).
#include "runtime/reductions/host_reduce.hpp"

#include "ir/dtype_dispatch.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/reductions/host_reduce_loops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

namespace tack::runtime {
namespace {

constexpr std::int64_t kBlock = std::int64_t{1} << 16;

template <class T>
struct Partial {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                                 std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;
  Acc value;
  bool any;  // min/max: saw a non-NaN element
};

template <class T>
Partial<T> reduce_block(const T* x, std::int64_t n, ReduceOp op) {
  using Acc = typename Partial<T>::Acc;
  if constexpr (std::is_floating_point_v<T>) {
    if (op == ReduceOp::Sum) return {sum_as_f64(x, n), true};
    const Extreme e = op == ReduceOp::Min ? min_of(x, n) : max_of(x, n);
    return {e.value, e.any};
  } else {
    if (op == ReduceOp::Sum) {
      std::uint64_t total = 0;  // wraps
      for (std::int64_t i = 0; i < n; ++i) total += static_cast<std::uint64_t>(static_cast<Acc>(x[i]));
      return {static_cast<Acc>(total), true};
    }
    Partial<T> best{Acc{}, false};
    for (std::int64_t i = 0; i < n; ++i) {
      Acc v = static_cast<Acc>(x[i]);
      if (!best.any || (op == ReduceOp::Min ? v < best.value : v > best.value)) best = {v, true};
    }
    return best;
  }
}

// Whether partial a comes before b for min (after it for max); of equal ones the earlier block's stays.
template <class T>
bool better(const Partial<T>& a, const Partial<T>& b, ReduceOp op) {
  return op == ReduceOp::Min ? a.value < b.value : a.value > b.value;
}

template <class T>
struct Job {
  const T* data;
  std::int64_t count;
  ReduceOp op;
  std::vector<Partial<T>>* partials;
  static void run(void* context, std::int64_t begin, std::int64_t end) {
    auto* j = static_cast<Job*>(context);
    for (std::int64_t b = begin; b < end; ++b) {
      std::int64_t lo = b * kBlock, hi = std::min(j->count, lo + kBlock);
      (*j->partials)[static_cast<std::size_t>(b)] = reduce_block(j->data + lo, hi - lo, j->op);
    }
  }
};

// A bool array's true elements, counted block by block: its bytes are read as u8,
// since a byte other than 0 and 1 (written through a u8 view) is true, not undefined.
struct CountTrue {
  const std::uint8_t* data;
  std::int64_t count;
  std::vector<std::int64_t>* partials;
  static void run(void* context, std::int64_t begin, std::int64_t end) {
    auto* j = static_cast<CountTrue*>(context);
    for (std::int64_t b = begin; b < end; ++b) {
      std::int64_t lo = b * kBlock, hi = std::min(j->count, lo + kBlock), n = 0;
      for (std::int64_t i = lo; i < hi; ++i) n += j->data[i] != 0;
      (*j->partials)[static_cast<std::size_t>(b)] = n;
    }
  }
};

ir::Bits reduce_bools(const Backend& backend, const std::uint8_t* data, std::int64_t count, ReduceOp op,
                      DType* result_dtype) {
  std::int64_t blocks = (count + kBlock - 1) / kBlock;
  std::vector<std::int64_t> partials(static_cast<std::size_t>(blocks));
  CountTrue job{data, count, &partials};
  if (blocks > 1)
    backend.run_host_parallel(blocks, CountTrue::run, &job);
  else if (blocks == 1)
    CountTrue::run(&job, 0, 1);
  std::int64_t trues = 0;
  for (std::int64_t n : partials) trues += n;
  if (op == ReduceOp::Sum) {
    *result_dtype = DType::I64;
    return static_cast<ir::Bits>(trues);
  }
  *result_dtype = DType::Bool;
  return op == ReduceOp::Min ? trues == count : trues > 0;
}

}  // namespace

ir::Bits host_reduce(const Backend& backend, DType t, const void* data, std::int64_t count, ReduceOp op,
                     DType* result_dtype) {
  if (t == DType::Bool) return reduce_bools(backend, static_cast<const std::uint8_t*>(data), count, op, result_dtype);
  return ir::with_dtype(t, [&](auto zero) -> ir::Bits {
    using T = decltype(zero);
    using Acc = typename Partial<T>::Acc;
    std::int64_t blocks = (count + kBlock - 1) / kBlock;
    std::vector<Partial<T>> partials(static_cast<std::size_t>(blocks));
    Job<T> job{static_cast<const T*>(data), count, op, &partials};
    if (blocks > 1)
      backend.run_host_parallel(blocks, Job<T>::run, &job);
    else if (blocks == 1)
      Job<T>::run(&job, 0, 1);
    Partial<T> total{Acc{}, false};
    for (const auto& p : partials) {
      if (op == ReduceOp::Sum) {
        if constexpr (std::is_floating_point_v<T>)
          total.value += p.value;
        else
          total.value = static_cast<Acc>(static_cast<std::uint64_t>(total.value) + static_cast<std::uint64_t>(p.value));
      } else if (p.any && (!total.any || better(p, total, op))) {
        total = p;
      }
    }
    if constexpr (std::is_floating_point_v<T>) {
      *result_dtype = DType::F64;
      double v = (op != ReduceOp::Sum && !total.any) ? std::nan("") : total.value;
      return std::bit_cast<std::uint64_t>(v);
    } else {
      *result_dtype = std::is_signed_v<T> ? DType::I64 : DType::U64;
      return static_cast<std::uint64_t>(total.value);
    }
  });
}

}  // namespace tack::runtime
