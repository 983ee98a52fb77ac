// DESIGN §4, shifts: the count is taken modulo the bit width (so shifting by
// the width, width + 1, 2 * width or a negative count is defined); >> is
// arithmetic for signed dtypes and logical for unsigned ones; << wraps.
#include "conformance/backend_param.hpp"

#include <cstdint>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Shifts);

tack::Kernel shl_kernel() {
  return tack::kernel(
      "shl", [](Array out, Array a, Array c) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] << c[i]; }); });
}
tack::Kernel shr_kernel() {
  return tack::kernel(
      "shr", [](Array out, Array a, Array c) { parallel_for(out.size(), [&](Index i) { out[i] = a[i] >> c[i]; }); });
}

template <class T>
constexpr int width() {
  return static_cast<int>(sizeof(T) * 8);
}
template <class T>
T bit(int k) {
  return static_cast<T>(std::uint64_t{1} << k);
}  // 2^k as T (MIN for k = w - 1, signed)
template <class T>
T val(long long v) {
  return static_cast<T>(v);
}

TEST_P(Shifts, LeftShiftCountModuloWidth) {
  auto k = shl_kernel();
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    constexpr int w = width<T>();
    std::vector<T> a = {1, 1, 1, 1, 1, 1, 3, highest<T>(), val<T>(-1), 5};
    std::vector<T> c = {0, 1, w - 1, w, w + 1, 2 * w, w - 1, 1, 4, 2 * w + 3};
    std::vector<T> want = {1, 2, bit<T>(w - 1), 1, 2, 1, bit<T>(w - 1), val<T>(-2), val<T>(-16), 40};
    RowText rows = rows_from({"1 << 0", "1 << 1", "1 << (w-1)", "1 << w", "1 << (w+1)", "1 << 2w", "3 << (w-1)",
                              "MAX << 1", "-1 << 4", "5 << (2w+3)"});
    if constexpr (std::is_signed_v<T>) {
      // Negative counts, modulo the width: -1 is w - 1, -w is 0, -(w - 1) is 1.
      a.insert(a.end(), {1, 1, 1, 3});
      c.insert(c.end(), {val<T>(-1), val<T>(-w), val<T>(-(w - 1)), val<T>(-w - 2)});
      want.insert(want.end(), {lowest<T>(), 1, 2, bit<T>(w - 1)});
      rows = rows_from({"1 << 0", "1 << 1", "1 << (w-1)", "1 << w", "1 << (w+1)", "1 << 2w", "3 << (w-1)", "MAX << 1",
                        "-1 << 4", "5 << (2w+3)", "1 << -1", "1 << -w", "1 << -(w-1)", "3 << (-w-2)"});
      // 3 << (-w - 2): the count is w - 2 modulo w, so 3 * 2^(w-2), whose top bit is the sign: MIN + 2^(w-2).
      want.back() = static_cast<T>(std::uint64_t{3} << (w - 2));
    }
    expect_exact(
        "a << c", [&](const tack::Device& d) { return run_binary<T>(k, d, a, c); }, want, rows);
  });
}

TEST_P(Shifts, RightShiftArithmeticForSignedLogicalForUnsigned) {
  auto k = shr_kernel();
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    constexpr int w = width<T>();
    constexpr bool s = std::is_signed_v<T>;
    const T top = bit<T>(w - 1);  // the top bit alone: MIN for signed types
    std::vector<T> a = {top, val<T>(-1), val<T>(-1), highest<T>(), top, top, 16, val<T>(-16), top};
    std::vector<T> c = {1, w - 1, w, 1, w + 1, 2 * w, 2, 2, w - 1};
    std::vector<T> want = {// top >> 1: sign-filled for signed (0b1100...), zero-filled for unsigned (0b0100...)
                           s ? static_cast<T>(top | bit<T>(w - 2)) : bit<T>(w - 2),
                           s ? val<T>(-1) : T(1),  // -1 >> (w-1)
                           val<T>(-1),             // -1 >> w: the count is 0
                           static_cast<T>(highest<T>() / 2),
                           s ? static_cast<T>(top | bit<T>(w - 2)) : bit<T>(w - 2),  // >> (w + 1) is >> 1
                           top,                                                      // >> 2w is >> 0
                           4,
                           s ? val<T>(-4) : static_cast<T>(highest<T>() / 4 - 3),  // (2^w - 16) >> 2 == 2^(w-2) - 4
                           s ? val<T>(-1) : T(1)};
    RowText rows = rows_from({"top >> 1", "-1 >> (w-1)", "-1 >> w", "MAX >> 1", "top >> (w+1)", "top >> 2w", "16 >> 2",
                              "-16 >> 2", "top >> (w-1)"});
    if constexpr (s) {
      a.insert(a.end(), {val<T>(-16), lowest<T>(), 64});
      c.insert(c.end(), {val<T>(-w + 2), val<T>(-1), val<T>(-2 * w + 3)});
      want.insert(want.end(), {val<T>(-4), val<T>(-1), 8});
      rows = rows_from({"top >> 1", "-1 >> (w-1)", "-1 >> w", "MAX >> 1", "top >> (w+1)", "top >> 2w", "16 >> 2",
                        "-16 >> 2", "top >> (w-1)", "-16 >> (-w+2)", "MIN >> -1", "64 >> (-2w+3)"});
    }
    expect_exact(
        "a >> c", [&](const tack::Device& d) { return run_binary<T>(k, d, a, c); }, want, rows);
  });
}

// Literal counts: 65 is 1 modulo every width and 64 is 0, so a << 65 == a << 1,
// a >> 65 == a >> 1 and a << 64 == a for every integer dtype.
TEST_P(Shifts, LiteralCounts) {
  auto k = tack::kernel("shift_literal_counts", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      out[4 * i] = a[i] << 65;
      out[4 * i + 1] = a[i] >> 65;
      out[4 * i + 2] = a[i] << 64;
      out[4 * i + 3] = (a[i] << 3) >> 1;
    });
  });
  for_each_type(IntTypes{}, [&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    if (!has_dtype<T>()) return;
    std::vector<T> a = {1, 6, highest<T>(), lowest<T>(), val<T>(-3), val<T>(0x5A)};
    std::vector<T> want;
    for (T x : a) {
      using U = std::make_unsigned_t<T>;
      U ux = static_cast<U>(x);
      want.push_back(static_cast<T>(static_cast<U>(ux << 1)));
      want.push_back(static_cast<T>(x >> 1));  // C++20: >> on signed values is arithmetic
      want.push_back(x);
      T x3 = static_cast<T>(static_cast<U>(ux << 3));
      want.push_back(static_cast<T>(x3 >> 1));
    }
    expect_exact(
        "shifts by literal counts",
        [&](const tack::Device& d) {
          tack::Array out = zeros<T>(d, 4 * static_cast<std::int64_t>(a.size()));
          k(out, d.from_host(a));
          return out.to_host<T>();
        },
        want,
        [](std::size_t i) {
          static const char* what[] = {"a << 65", "a >> 65", "a << 64", "(a << 3) >> 1"};
          return "element " + std::to_string(i / 4) + ", " + what[i % 4];
        });
  });
}

}  // namespace
