// Atomics: atomic_add/sub/min/max/and/or/xor/exchange/cas return the element's
// old value, on every dtype the backend's capabilities().supported_atomic_dtypes
// lists (the others are refused with tack::TypeError). Contended rows hammer one
// element from every work-item; their results, and the multiset of old values
// where it is deterministic, are exact. Uncontended rows (each work-item its own
// element) check every old value and the arithmetic (wrapping, min/max order).
#include "conformance/backend_param.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Atomics);

constexpr std::int64_t kItems = 100;  // fits every dtype, i8 included

// Runs `k(olds, acc, extra...)` and returns {olds..., acc...}.
template <class T, class... Extra>
std::vector<T> run_atomic(const tack::Kernel& k, const tack::Device& d, std::int64_t n, std::vector<T> acc_init,
                          const Extra&... extra) {
  tack::Array olds = zeros<T>(d, n);
  tack::Array acc = d.from_host(acc_init);
  k(olds, acc, d.from_host(extra)...);
  std::vector<T> out = olds.to_host<T>();
  for (T x : acc.to_host<T>()) out.push_back(x);
  return out;
}

template <class T>
std::vector<T> sorted(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_P(Atomics, ContendedAddAndSubCountExactly) {
  auto add = tack::kernel("atomic_add_count", [](Array olds, Array acc) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_add(acc, 0, 1); });
  });
  auto sub = tack::kernel("atomic_sub_count", [](Array olds, Array acc) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_sub(acc, 0, 1); });
  });
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    // The old values of n increments from 0 are 0 .. n-1 in some order; the total is n.
    std::vector<T> want;
    for (std::int64_t i = 0; i < kItems; ++i) want.push_back(static_cast<T>(i));
    want.push_back(static_cast<T>(kItems));
    auto run_add = [&](const tack::Device& d) {
      auto r = run_atomic<T>(add, d, kItems, {T(0)});
      std::sort(r.begin(), r.end() - 1);
      return r;
    };
    expect_exact("sorted old values of atomic_add(acc, 0, 1), then acc", run_add, want);
    // n decrements from n: old values n .. 1, the total 0.
    std::vector<T> want_sub;
    for (std::int64_t i = 1; i <= kItems; ++i) want_sub.push_back(static_cast<T>(i));
    want_sub.push_back(T(0));
    auto run_sub = [&](const tack::Device& d) {
      auto r = run_atomic<T>(sub, d, kItems, {static_cast<T>(kItems)});
      std::sort(r.begin(), r.end() - 1);
      return r;
    };
    expect_exact("sorted old values of atomic_sub(acc, 0, 1), then acc", run_sub, want_sub);
  });
}

TEST_P(Atomics, ContendedMinAndMax) {
  auto mn = tack::kernel("atomic_min_contended", [](Array olds, Array acc, Array v) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_min(acc, 0, v[i]); });
  });
  auto mx = tack::kernel("atomic_max_contended", [](Array olds, Array acc, Array v) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_max(acc, 0, v[i]); });
  });
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    constexpr bool neg = !std::is_unsigned_v<T>;
    std::vector<T> v;
    // A shuffled spread: i * 37 mod 100, shifted to -50 .. 49 where negatives exist.
    for (std::int64_t i = 0; i < kItems; ++i) v.push_back(static_cast<T>((i * 37) % kItems - (neg ? 50 : 0)));
    const T init = T(10);
    const T lo = neg ? T(-50) : T(0), hi = neg ? T(49) : T(99);
    for (auto [k, want_final, name] : {std::tuple{&mn, lo, "atomic_min"}, std::tuple{&mx, hi, "atomic_max"}}) {
      auto run = [&](const tack::Device& d) { return run_atomic<T>(*k, d, kItems, {init}, v); };
      std::vector<T> got = run(dev());
      // Every old value lies between the start and the result, and the first seen is the start.
      T result = got.back();
      got.pop_back();
      EXPECT_TRUE(same_value(result, want_final)) << name << ": final " << show(result);
      bool first_saw_init = std::find(got.begin(), got.end(), init) != got.end();
      EXPECT_TRUE(first_saw_init) << name << ": no work-item saw the initial value";
      for (T o : got) {
        EXPECT_TRUE(std::min(init, want_final) <= o && o <= std::max(init, want_final))
            << name << ": old value " << show(o) << " outside [" << show(std::min(init, want_final)) << ", "
            << show(std::max(init, want_final)) << "]";
      }
    }
  });
}

TEST_P(Atomics, ContendedBitwise) {
  auto band = tack::kernel("atomic_and_contended", [](Array olds, Array acc, Array m) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_and(acc, 0, m[i]); });
  });
  auto bor = tack::kernel("atomic_or_contended", [](Array olds, Array acc, Array m) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_or(acc, 0, m[i]); });
  });
  auto bxor = tack::kernel("atomic_xor_contended", [](Array olds, Array acc, Array m) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_xor(acc, 0, m[i]); });
  });
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    using U = std::make_unsigned_t<T>;
    constexpr int w = static_cast<int>(sizeof(T) * 8);
    const std::int64_t n = 70;  // every bit at least once
    std::vector<T> bits, clear;
    U x = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      U b = static_cast<U>(std::uint64_t{1} << (i % w));
      bits.push_back(static_cast<T>(b));
      clear.push_back(static_cast<T>(static_cast<U>(~b)));
      x = static_cast<U>(x ^ b);
    }
    const T all = static_cast<T>(~U{0});
    auto final_of = [&](const tack::Kernel& k, T init, const std::vector<T>& m) {
      return [&, init](const tack::Device& d) {
        auto r = run_atomic<T>(k, d, n, {init}, m);
        return std::vector<T>{r.back()};
      };
    };
    expect_exact("atomic_and clearing every bit", final_of(band, all, clear), std::vector<T>{T(0)});
    expect_exact("atomic_or setting every bit", final_of(bor, T(0), bits), std::vector<T>{all});
    expect_exact("atomic_xor toggling bits", final_of(bxor, T(0), bits), std::vector<T>{static_cast<T>(x)});
  });
}

// Exchange: the old values and the final value together are the start and every value written.
TEST_P(Atomics, ContendedExchange) {
  auto k = tack::kernel("atomic_exchange_contended", [](Array olds, Array acc, Array v) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_exchange(acc, 0, v[i]); });
  });
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    std::vector<T> v, want;
    for (std::int64_t i = 1; i <= kItems; ++i) v.push_back(static_cast<T>(i));
    for (std::int64_t i = 0; i <= kItems; ++i) want.push_back(static_cast<T>(i));
    expect_exact(
        "sorted old values and final value of atomic_exchange",
        [&](const tack::Device& d) { return sorted(run_atomic<T>(k, d, kItems, {T(0)}, v)); }, want);
  });
}

// CAS: exactly one work-item swaps 0 for its value; every other one sees the winner's value.
TEST_P(Atomics, ContendedCompareAndSwap) {
  auto k = tack::kernel("atomic_cas_contended", [](Array olds, Array acc, Array v) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_cas(acc, 0, 0, v[i]); });
  });
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    std::vector<T> v;
    for (std::int64_t i = 1; i <= kItems; ++i) v.push_back(static_cast<T>(i));
    std::vector<T> got = run_atomic<T>(k, dev(), kItems, {T(0)}, v);
    T winner = got.back();
    got.pop_back();
    EXPECT_TRUE(winner >= T(1) && winner <= static_cast<T>(kItems)) << "final " << show(winner);
    EXPECT_EQ(std::count(got.begin(), got.end(), T(0)), 1) << "exactly one CAS must succeed";
    EXPECT_EQ(std::count(got.begin(), got.end(), winner), kItems - 1) << "the others see the winner's value";
    for (std::int64_t i = 0; i < kItems; ++i)
      if (got[i] == T(0)) EXPECT_TRUE(same_value(v[i], winner)) << "the work-item that saw 0 wrote the final value";
  });
}

// A CAS loop: each work-item retries until its increment lands; the total is exact.
TEST_P(Atomics, CompareAndSwapLoopIncrements) {
  auto k = tack::kernel("atomic_cas_loop", [](Array olds, Array acc) {
    parallel_for(olds.size(), [&](Index i) {
      Var cur = acc[0];
      Var done = 0;
      Var tries = 0;
      while_([&] { return done == 0; },
             [&] {
               Value seen = atomic_cas(acc, 0, cur, cur + 1);
               tries += 1;
               if_(
                   seen == cur, [&] { done = 1; }, [&] { cur = seen; });
             });
      olds[i] = cur;
    });
  });
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    const std::int64_t n = 64;
    std::vector<T> want;
    for (std::int64_t i = 0; i < n; ++i) want.push_back(static_cast<T>(i));
    want.push_back(static_cast<T>(n));
    expect_exact(
        "CAS-loop increments: sorted values replaced, then the total",
        [&](const tack::Device& d) {
          auto r = run_atomic<T>(k, d, n, {T(0)});
          std::sort(r.begin(), r.end() - 1);
          return r;
        },
        want);
  });
}

// Each work-item on its own element: every old value and result is determined.
TEST_P(Atomics, UncontendedOpsReturnOldValues) {
#define TACK_ATOMIC_KERNEL(op)                                                        \
  tack::kernel("atomic_" #op "_each", [](Array olds, Array acc, Array v) {            \
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_##op(acc, i, v[i]); }); \
  })
  auto add = TACK_ATOMIC_KERNEL(add), sub = TACK_ATOMIC_KERNEL(sub), mn = TACK_ATOMIC_KERNEL(min),
       mx = TACK_ATOMIC_KERNEL(max), xch = TACK_ATOMIC_KERNEL(exchange), band = TACK_ATOMIC_KERNEL(and),
       bor = TACK_ATOMIC_KERNEL(or), bxor = TACK_ATOMIC_KERNEL(xor);
#undef TACK_ATOMIC_KERNEL
  auto cas = tack::kernel("atomic_cas_each", [](Array olds, Array acc, Array e, Array v) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_cas(acc, i, e[i], v[i]); });
  });
  for_each_type(AllTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>() || !has_atomic<T>()) return;
    constexpr bool is_int = std::is_integral_v<T>;
    const T lo = lowest<T>(), hi = highest<T>();
    // clang-format off
    std::vector<T> init = {T(0), T(1),  hi,   lo,                  T(5), T(100), T(7),  T(2)};
    std::vector<T> v    = {T(1), hi,    T(1), static_cast<T>(-1),  T(5), T(3),   T(12), T(0)};
    // clang-format on
    auto n = static_cast<std::int64_t>(init.size());
    auto host = [&](auto f) {
      std::vector<T> out = init;  // the old values
      for (std::size_t i = 0; i < init.size(); ++i) out.push_back(f(init[i], v[i]));
      return out;
    };
    auto u64 = [](T x) { return static_cast<std::uint64_t>(x); };
    auto wrap_add = [&](T a, T b) {
      if constexpr (is_int)
        return static_cast<T>(u64(a) + u64(b));
      else
        return static_cast<T>(a + b);
    };
    auto wrap_sub = [&](T a, T b) {
      if constexpr (is_int)
        return static_cast<T>(u64(a) - u64(b));
      else
        return static_cast<T>(a - b);
    };
    auto rows = [&](std::size_t i) {
      return i < init.size() ? "old value at " + std::to_string(i)
                             : "acc[" + std::to_string(i - init.size()) + "] = " + show(init[i - init.size()]) +
                                   " op " + show(v[i - init.size()]);
    };
    auto run = [&](const tack::Kernel& k) {
      return [&](const tack::Device& d) { return run_atomic<T>(k, d, n, init, v); };
    };
    expect_exact("atomic_add", run(add), host(wrap_add), rows);
    expect_exact("atomic_sub", run(sub), host(wrap_sub), rows);
    expect_exact("atomic_min", run(mn), host([](T a, T b) { return std::min(a, b); }), rows);
    expect_exact("atomic_max", run(mx), host([](T a, T b) { return std::max(a, b); }), rows);
    expect_exact("atomic_exchange", run(xch), host([](T, T b) { return b; }), rows);
    if constexpr (is_int) {
      // Wrapping written out: MAX + 1 is MIN, MIN - (-1) is MIN + 1, 0 - 1 ... see host(); check two by hand.
      EXPECT_EQ(host(wrap_add)[n + 2], lo);
      EXPECT_EQ(host(wrap_sub)[n + 0], static_cast<T>(-1));
      expect_exact("atomic_and", run(band), host([](T a, T b) { return static_cast<T>(a & b); }), rows);
      expect_exact("atomic_or", run(bor), host([](T a, T b) { return static_cast<T>(a | b); }), rows);
      expect_exact("atomic_xor", run(bxor), host([](T a, T b) { return static_cast<T>(a ^ b); }), rows);
    }
    // CAS: rows whose expected value matches swap, the others keep the element.
    std::vector<T> e = {T(0), T(2), hi, T(0), T(5), T(99), T(7), T(3)};
    std::vector<T> want = init;
    for (std::size_t i = 0; i < init.size(); ++i) want.push_back(same_value(init[i], e[i]) ? v[i] : init[i]);
    if constexpr (!is_int) {
      // Bit for bit: -0.0 does not match 0.0, and a NaN matches the same NaN.
      const T nan = std::numeric_limits<T>::quiet_NaN();
      init.insert(init.end(), {T(0), nan});
      e.insert(e.end(), {T(-0.0), nan});
      v.insert(v.end(), {T(8), T(9)});
      n += 2;
      want = init;
      for (std::size_t i = 0; i < init.size(); ++i) want.push_back(same_value(init[i], e[i]) ? v[i] : init[i]);
      want[want.size() - 2] = T(0);
      want[want.size() - 1] = T(9);
    }
    expect_exact(
        "atomic_cas",
        [&](const tack::Device& d) {
          tack::Array olds = zeros<T>(d, n);
          tack::Array acc = d.from_host(init);
          cas(olds, acc, d.from_host(e), d.from_host(v));
          std::vector<T> out = olds.to_host<T>();
          for (T x : acc.to_host<T>()) out.push_back(x);
          return out;
        },
        want);
  });
}

// Atomics on a dtype the backend does not list are refused at the call.
TEST_P(Atomics, UnlistedDtypesAreRefused) {
  auto k = tack::kernel("atomic_add_unlisted", [](Array olds, Array acc) {
    parallel_for(olds.size(), [&](Index i) { olds[i] = atomic_add(acc, 0, 1); });
  });
  int refused = 0;
  for_each_type(AllTypes{}, [&]<class T>() {
    if (!caps().supports(tack::dtype_of<T>) || caps().supports_atomic(tack::dtype_of<T>)) return;
    ++refused;
    tack::Array olds = zeros<T>(dev(), 4), acc = zeros<T>(dev(), 1);
    EXPECT_THROW(k(olds, acc), tack::TypeError) << type_name<T>();
  });
  if (refused == 0) std::cout << "[ NOTE     ] " << backend() << " has atomics on all its dtypes\n";
}

}  // namespace
