// The conformance suite's parameterization and comparison helpers.
//
// Every conformance test is a TEST_P of a fixture derived from BackendTest,
// whose parameter is a backend name. TACK_CONFORMANCE_SUITE(Name) declares such
// a fixture and instantiates it over every name in tack::backend_names(), so a
// backend added to the library joins the suite with no change here. A backend
// whose tack::device(name) throws tack::BackendUnavailable is skipped, loudly,
// with the reason.
//
// A test runs its kernel on the backend under test and on "interp", the
// reference interpreter (DESIGN §4), and compares the two: bit for bit for the
// exact rows of §4, within a few ulp for transcendental functions, within
// n * eps * sum|x| for reductions. On "interp" itself each exact row is also
// compared with values written in the test, so a wrong interpreter fails the
// suite instead of passing it vacuously.
//
// Rows of a dtype or atomic the backend lacks (has_dtype, has_atomic) are not
// run; the test then ends as SKIPPED, naming them, rather than PASSED, since
// it did not check everything its name promises.
#pragma once

#include "support/per_backend.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tack::conformance {

// ---- the ten dtypes as C++ types -------------------------------------------

template <class... T>
struct Types {};
using SignedTypes = Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
using UnsignedTypes = Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
using IntTypes = Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                       std::int64_t, std::uint64_t>;
using FloatTypes = Types<float, double>;
using AllTypes = Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                       std::int64_t, std::uint64_t, float, double>;

// Calls f.template operator()<T>() for each T: for_each_type(IntTypes{}, [&]<class T>() { ... });
template <class... T, class F>
void for_each_type(Types<T...>, F&& f) {
  (f.template operator()<T>(), ...);
}

template <class T>
std::string type_name() {
  return std::string(tack::dtype_name(tack::dtype_of<T>));
}
template <class T>
constexpr T lowest() {
  return std::numeric_limits<T>::lowest();
}
template <class T>
constexpr T highest() {
  return std::numeric_limits<T>::max();
}

// ---- values: printing and comparing ----------------------------------------

template <class T>
auto bits_of(T v) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<std::uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<std::uint64_t>(v);
  else
    return v;
}

template <class T>
std::string show(T v) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) {
    s << std::setprecision(std::numeric_limits<T>::max_digits10) << v << " (" << std::hexfloat << v << ")";
  } else if constexpr (sizeof(T) == 1 || std::is_same_v<T, bool>) {
    s << static_cast<int>(v);
  } else {
    s << v;
  }
  return s.str();
}

// Exact equality as DESIGN §4 means it: the same bits (so -0.0 differs from
// +0.0), except that any NaN equals any NaN, since §4 does not fix NaN payloads.
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return bits_of(a) == bits_of(b);
  } else {
    return a == b;
  }
}

// Distance in units in the last place; 0 for equal values (and for two NaNs),
// the maximum for a NaN against a number.
template <class F>
std::uint64_t ulp_distance(F a, F b) {
  static_assert(std::is_floating_point_v<F>);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : ~std::uint64_t{0};
  if (a == b) return 0;
  auto magnitude = [](F x) -> std::uint64_t {
    auto b = bits_of(x);
    using B = decltype(b);
    return static_cast<std::uint64_t>(b & (~B{0} >> 1));  // the bits without the sign
  };
  bool na = std::signbit(a), nb = std::signbit(b);
  std::uint64_t ma = magnitude(a), mb = magnitude(b);
  if (na == nb) return ma > mb ? ma - mb : mb - ma;
  return ma + mb;  // across zero
}

// Describes row i of a table (the inputs), for failure messages.
using RowText = std::function<std::string(std::size_t)>;

// Hand-written rows: a label per row, e.g. rows_from({"MAX + 1", "MIN - 1"}).
inline RowText rows_from(std::vector<std::string> labels) {
  return [labels = std::move(labels)](std::size_t i) { return i < labels.size() ? labels[i] : std::string(); };
}
// Rows described by their input values.
template <class A>
RowText rows_of(const std::vector<A>& a) {
  return [a](std::size_t i) { return i < a.size() ? "x = " + show(a[i]) : std::string(); };
}
template <class A, class B>
RowText rows_of(const std::vector<A>& a, const std::vector<B>& b) {
  return [a, b](std::size_t i) {
    return i < a.size() && i < b.size() ? "a = " + show(a[i]) + ", b = " + show(b[i]) : std::string();
  };
}

template <class T>
void compare_exact(std::string_view what, std::string_view got_name, const std::vector<T>& got,
                   std::string_view want_name, const std::vector<T>& want, const RowText& rows = {}) {
  if (got.size() != want.size()) {
    ADD_FAILURE() << what << ": " << got_name << " gave " << got.size() << " values, " << want_name << " "
                  << want.size();
    return;
  }
  std::ostringstream msg;
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (same_value(got[i], want[i])) continue;
    if (++bad <= 12) {
      msg << "\n  [" << i << "]";
      if (rows) {
        std::string r = rows(i);
        if (!r.empty()) msg << " " << r << ":";
      }
      msg << " " << got_name << " " << show(got[i]) << ", " << want_name << " " << show(want[i]);
    }
  }
  if (bad)
    ADD_FAILURE() << what << " (" << type_name<T>() << "): " << bad << " of " << got.size() << " values differ"
                  << msg.str();
}

template <class T>
void compare_ulp(std::string_view what, std::string_view got_name, const std::vector<T>& got,
                 std::string_view want_name, const std::vector<T>& want, std::uint64_t max_ulp,
                 const RowText& rows = {}) {
  if (got.size() != want.size()) {
    ADD_FAILURE() << what << ": " << got_name << " gave " << got.size() << " values, " << want_name << " "
                  << want.size();
    return;
  }
  std::ostringstream msg;
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::uint64_t d = ulp_distance(got[i], want[i]);
    if (d <= max_ulp) continue;
    if (++bad <= 12) {
      msg << "\n  [" << i << "]";
      if (rows) {
        std::string r = rows(i);
        if (!r.empty()) msg << " " << r << ":";
      }
      msg << " " << got_name << " " << show(got[i]) << ", " << want_name << " " << show(want[i]) << " (" << d
          << " ulp)";
    }
  }
  if (bad)
    ADD_FAILURE() << what << " (" << type_name<T>() << "): " << bad << " of " << got.size() << " values are more than "
                  << max_ulp << " ulp apart" << msg.str();
}

// ---- running kernels ---------------------------------------------------------

template <class T>
tack::Array zeros(const tack::Device& d, std::int64_t n) {
  return d.zeros(tack::dtype_of<T>, {n});
}

// out[i] = kernel(a[i]) for a kernel (Array out, Array a); Out is the output dtype.
template <class Out, class A>
std::vector<Out> run_unary(const tack::Kernel& k, const tack::Device& d, const std::vector<A>& a) {
  tack::Array out = zeros<Out>(d, static_cast<std::int64_t>(a.size()));
  k(out, d.from_host(a));
  return out.to_host<Out>();
}

// out[i] = kernel(a[i], b[i]) for a kernel (Array out, Array a, Array b).
template <class Out, class A, class B>
std::vector<Out> run_binary(const tack::Kernel& k, const tack::Device& d, const std::vector<A>& a,
                            const std::vector<B>& b) {
  tack::Array out = zeros<Out>(d, static_cast<std::int64_t>(a.size()));
  k(out, d.from_host(a), d.from_host(b));
  return out.to_host<Out>();
}

// ---- the fixture ---------------------------------------------------------------

class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    try {
      device_ = tack::device(GetParam());
    } catch (const tack::BackendUnavailable& e) {
      GTEST_SKIP() << "backend '" << GetParam() << "' is unavailable here: " << e.what();
    }
    reference_ = tack::device("interp");
  }

  // A test whose rows were partly or wholly not run reports a skip (a skip
  // recorded in TearDown marks the test SKIPPED unless it also failed).
  void TearDown() override {
    if (skipped_rows_.empty()) return;
    std::string rows;
    for (const std::string& r : skipped_rows_) rows += (rows.empty() ? "" : ", ") + r;
    GTEST_SKIP() << backend() << " has no " << rows << "; the rows that need them were not run";
  }

  // The backend under test, and the reference interpreter.
  const tack::Device& dev() const { return device_; }
  const tack::Device& interp() const { return reference_; }
  bool on_interp() const { return GetParam() == "interp"; }
  const tack::Capabilities& caps() const { return device_.capabilities(); }
  const std::string& backend() const { return GetParam(); }
  // Whether array_from_ptr takes a host pointer here: the host devices, whose arrays are host memory (the GPU
  // backends wrap their own device memory only).
  bool wraps_host_memory() const {
    return caps().supports_wrapped_memory && (backend() == "cpu" || backend() == "interp");
  }

  // Whether the backend holds arrays of T; when it does not, the rows are
  // skipped and the test reports it (TearDown).
  template <class T>
  bool has_dtype() const {
    if (caps().supports(tack::dtype_of<T>)) return true;
    skipped_rows_.insert(type_name<T>() + " arrays");
    return false;
  }
  template <class T>
  bool has_atomic() const {
    if (caps().supports_atomic(tack::dtype_of<T>)) return true;
    skipped_rows_.insert(type_name<T>() + " atomics");
    return false;
  }

  // Exact rows: run(device) -> std::vector<T> runs the kernel on a device and
  // reads its result. On interp the result must equal `expected` (written in
  // the test); on any other backend it must equal interp's, bit for bit.
  template <class T, class Run>
  void expect_exact(std::string_view what, Run&& run, const std::vector<T>& expected, const RowText& rows = {}) {
    std::vector<T> got = run(dev());
    if (on_interp()) {
      compare_exact(what, "interp", got, "expected", expected, rows);
    } else {
      compare_exact(what, backend(), got, "interp", run(interp()), rows);
    }
  }

  // Rows whose expected value is one of two results the contract allows
  // (e.g. a fused or an unfused a*b+c): on every backend each row must be one
  // of the two, with as many rows as the tables; elsewhere than on interp,
  // interp's own result is run and held to the same rule, so the reference is
  // checked on every backend's run too.
  template <class T, class Run>
  void expect_one_of(std::string_view what, Run&& run, const std::vector<T>& first, const std::vector<T>& second,
                     const RowText& rows = {}) {
    if (first.size() != second.size()) {
      ADD_FAILURE() << what << ": the test's two tables differ in size (" << first.size() << ", " << second.size()
                    << ")";
      return;
    }
    auto check = [&](std::string_view who, const std::vector<T>& got) {
      if (got.size() != first.size()) {
        ADD_FAILURE() << what << ": " << who << " gave " << got.size() << " values, the test has " << first.size()
                      << " rows";
        return;
      }
      std::ostringstream msg;
      int bad = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (same_value(got[i], first[i]) || same_value(got[i], second[i])) continue;
        if (++bad <= 12) {
          msg << "\n  [" << i << "]";
          if (rows) msg << " " << rows(i) << ":";
          msg << " got " << show(got[i]) << ", allowed " << show(first[i]) << " or " << show(second[i]);
        }
      }
      if (bad)
        ADD_FAILURE() << what << " (" << type_name<T>() << ") on " << who << ": " << bad << " values are neither"
                      << msg.str();
    };
    check(backend(), run(dev()));
    if (!on_interp()) check("interp", run(interp()));
  }

  // Transcendental rows: within max_ulp of the host's libm (`host`) on every
  // backend, and within max_ulp of interp on the others.
  template <class T, class Run>
  void expect_near_ulp(std::string_view what, Run&& run, const std::vector<T>& host, std::uint64_t max_ulp,
                       const RowText& rows = {}) {
    std::vector<T> got = run(dev());
    compare_ulp(what, backend(), got, "host libm", host, max_ulp, rows);
    if (!on_interp()) compare_ulp(what, backend(), got, "interp", run(interp()), max_ulp, rows);
  }

 private:
  tack::Device device_;
  tack::Device reference_;
  mutable std::set<std::string> skipped_rows_;  // what has_dtype/has_atomic found missing
};

// A test instance's name: the backend's, as gtest allows it (support/per_backend.hpp).
using ::tack_test::backend_test_name;

}  // namespace tack::conformance

// Declares the fixture Suite (a BackendTest) and runs its TEST_Ps on every backend.
#define TACK_CONFORMANCE_SUITE(Suite)                                                     \
  class Suite : public ::tack::conformance::BackendTest {};                               \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::ValuesIn(::tack::backend_names()), \
                           ::tack::conformance::backend_test_name)
