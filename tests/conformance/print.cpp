// print in kernels (docs/language.md, "Printing"): a launch's lines reach stderr
// when it has finished, sorted by work-item index (a work-item's own lines in
// program order), whatever order the work-items ran in; values print exactly
// (integers in decimal, floats as the shortest text that reads back the same,
// bools as true/false); lines past the capacity (TACK_PRINT_LINES) are counted
// in one last line. Every backend must print what interp prints.
#include "conformance/backend_param.hpp"
#include "support/scoped_env.hpp"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace tack::lang;
using namespace tack::conformance;

namespace {

TACK_CONFORMANCE_SUITE(Print);

// What `run` wrote to stderr.
template <class F>
std::string stderr_of(F&& run) {
  testing::internal::CaptureStderr();
  try {
    run();
    tack::sync();
  } catch (...) {
    testing::internal::GetCapturedStderr();
    throw;
  }
  return testing::internal::GetCapturedStderr();
}

// Sets TACK_PRINT_LINES for one test and puts back the value it had, however the test ends.
struct PrintLines : tack_test::ScopedEnv {
  explicit PrintLines(const char* n) : ScopedEnv("TACK_PRINT_LINES", n) {}
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

TEST_P(Print, LinesComeOutInWorkItemOrderWhateverOrderTheyRan) {
  // Later work-items spin less, so they tend to print first; each prints two lines.
  auto k = tack::kernel("print_order", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      Var spin = 0;
      for_range(0, (out.size() - i) * 20, [&](Index) { spin = spin + 1; });
      out[i] = spin;
      print("first {}", i);
      print("second {} {}", i, i * 2);
    });
  });
  const std::int64_t n = 700;
  tack::Array out = zeros<std::int64_t>(dev(), n);
  std::string got = stderr_of([&] { k(out); });
  std::string want;
  for (std::int64_t i = 0; i < n; ++i)
    want += "first " + std::to_string(i) + "\nsecond " + std::to_string(i) + " " + std::to_string(2 * i) + "\n";
  EXPECT_EQ(got, want) << "on " << backend();
}

// A printing launch returns as any launch does; its lines come out at the next wait,
// launch after launch, and each wait kind writes them.
TEST_P(Print, LinesComeOutAtTheNextWaitInLaunchOrder) {
  auto k = tack::kernel("print_deferred", [](Array out, Scalar tag) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = tag;
      print("launch {} item {}", tag, i);
    });
  });
  tack::Array out = zeros<std::int32_t>(dev(), 2);
  const std::vector<std::pair<const char*, std::function<void()>>> waits = {
      {"tack::sync", [] { tack::sync(); }},
      {"Device::synchronize", [&] { dev().synchronize(); }},
      {"to_host", [&] { (void)out.to_host<std::int32_t>(); }},
      {"sum", [&] { (void)out.sum<std::int32_t>(); }},
      {"synchronize_async", [&] { dev().synchronize_async().get(); }},
      {"share", [&] { (void)out.share(); }},
  };
  for (const auto& [name, wait] : waits) {
    SCOPED_TRACE(name);
    testing::internal::CaptureStderr();
    k(out, 1);
    k(out, 2);
    std::string before = testing::internal::GetCapturedStderr();
    EXPECT_EQ(before, "") << "nothing is written before a wait, on " << backend();
    testing::internal::CaptureStderr();
    wait();
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "launch 1 item 0\nlaunch 1 item 1\nlaunch 2 item 0\nlaunch 2 item 1\n")
        << "on " << backend();
  }
}

TEST_P(Print, TwoDimensionalRangeIsRowMajor) {
  auto k = tack::kernel("print_2d", [](Array out) {
    parallel_for({out.shape(0), out.shape(1)}, [&](Index i, Index j) {
      out(i, j) = i + j;
      print("({}, {})", i, j);
    });
  });
  tack::Array out = dev().zeros(tack::DType::I32, {3, 5});
  std::string got = stderr_of([&] { k(out); });
  std::string want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) want += "(" + std::to_string(i) + ", " + std::to_string(j) + ")\n";
  EXPECT_EQ(got, want) << "on " << backend();
}

TEST_P(Print, ConditionalPrintAndBraces) {
  auto k = tack::kernel("print_if", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = i;
      print_if(i % 3 == 0, "{{i}} = {}", i);
    });
  });
  tack::Array out = zeros<std::int32_t>(dev(), 10);
  EXPECT_EQ(stderr_of([&] { k(out); }), "{i} = 0\n{i} = 3\n{i} = 6\n{i} = 9\n") << "on " << backend();
}

TEST_P(Print, IntegersOfEveryWidthPrintExactly) {
  for_each_type(IntTypes{}, [&]<class T>() {
    if (!has_dtype<T>()) return;
    auto k = tack::kernel("print_int_" + type_name<T>(),
                          [](Array a) { parallel_for(a.size(), [&](Index i) { print("{}: {}", i, a[i]); }); });
    std::vector<T> values = {lowest<T>(), highest<T>(), T(0), T(1), static_cast<T>(highest<T>() / 3)};
    if constexpr (std::is_signed_v<T>) values.push_back(T(-1));
    std::string want;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto v = values[i];
      want +=
          std::to_string(i) + ": " + (sizeof(T) == 1 ? std::to_string(static_cast<int>(v)) : std::to_string(v)) + "\n";
    }
    auto run = [&](const tack::Device& d) {
      tack::Array a = d.from_host(values);
      return stderr_of([&] { k(a); });
    };
    const std::string got = run(dev());
    EXPECT_EQ(got, want) << type_name<T>() << " on " << backend();
    if (!on_interp()) {
      EXPECT_EQ(got, run(interp())) << type_name<T>() << ": " << backend() << " against interp";
    }
  });
}

TEST_P(Print, FloatsPrintShortestRoundTripText) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> f32 = {-0.0f,         0.0f, std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e-45f, 0.1f,
                                  3.4028235e38f, -1.5f};
  const std::string want32 = "-0\n0\nnan\ninf\n-inf\n1e-45\n0.1\n3.4028235e+38\n-1.5\n";
  const double dinf = std::numeric_limits<double>::infinity();
  const std::vector<double> f64 = {-0.0, std::numeric_limits<double>::quiet_NaN(), -dinf, 5e-324, 0.1, 1.0 / 3};
  const std::string want64 = "-0\nnan\n-inf\n5e-324\n0.1\n0.3333333333333333\n";
  auto k = tack::kernel("print_float", [](Array a) { parallel_for(a.size(), [&](Index i) { print("{}", a[i]); }); });
  auto run = [&](const tack::Device& d, auto values) {
    tack::Array a = d.from_host(values);
    return stderr_of([&] { k(a); });
  };
  const std::string got32 = run(dev(), f32);
  EXPECT_EQ(got32, want32) << "f32 on " << backend();
  if (!on_interp()) {
    EXPECT_EQ(got32, run(interp(), f32)) << "f32: " << backend() << " against interp";
  }
  if (has_dtype<double>()) {
    const std::string got64 = run(dev(), f64);
    EXPECT_EQ(got64, want64) << "f64 on " << backend();
    if (!on_interp()) {
      EXPECT_EQ(got64, run(interp(), f64)) << "f64: " << backend() << " against interp";
    }
  }
}

TEST_P(Print, MixedArgumentsAndBools) {
  auto k = tack::kernel("print_mixed", [](Array a, Array b) {
    parallel_for(a.size(), [&](Index i) {
      Value x = a[i];
      print("{} {} {} {} {} {}", x, x > 1.0f, i, b[i], cast<std::uint32_t>(i) + 7u, x * 2.0f);
    });
  });
  tack::Array a = dev().from_host(std::vector<float>{0.5f, 2.0f});
  tack::Array b = dev().from_host(std::vector<std::int64_t>{-5000000000, 7});
  EXPECT_EQ(stderr_of([&] { k(a, b); }), "0.5 false 0 -5000000000 7 1\n2 true 1 7 8 4\n") << "on " << backend();
}

TEST_P(Print, WorkgroupKernelPrintsByGlobalIndex) {
  auto k = tack::kernel("print_groups", [](Array out) {
    workgroup_for(out.size() / 256, [&](Group g) {
      out[g.global_id()] = g.local_id();
      g.barrier();
      print_if(g.local_id() % 100 == 0, "group {} local {}", g.group_id(), g.local_id());
    });
  });
  tack::Array out = zeros<std::int32_t>(dev(), 3 * 256);
  if (!caps().supports_workgroups) GTEST_SKIP() << backend() << " has no workgroups";
  EXPECT_EQ(stderr_of([&] { k(out); }),
            "group 0 local 0\ngroup 0 local 100\ngroup 0 local 200\n"
            "group 1 local 0\ngroup 1 local 100\ngroup 1 local 200\n"
            "group 2 local 0\ngroup 2 local 100\ngroup 2 local 200\n")
      << "on " << backend();
}

TEST_P(Print, OverflowSaysHowManyLinesWereLost) {
  PrintLines ten("10");
  auto k = tack::kernel("print_many", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = i;
      print("line {}", i);
    });
  });
  tack::Array out = zeros<std::int32_t>(dev(), 25);
  std::vector<std::string> lines = lines_of(stderr_of([&] { k(out); }));
  ASSERT_EQ(lines.size(), 11u) << "on " << backend();
  std::int64_t previous = -1;
  for (int l = 0; l < 10; ++l) {  // ten of the lines, whichever claimed a slot first, in order
    ASSERT_EQ(lines[l].rfind("line ", 0), 0u) << lines[l];
    const std::int64_t i = std::stoll(lines[l].substr(5));
    EXPECT_GT(i, previous) << "on " << backend();
    EXPECT_LT(i, 25);
    previous = i;
  }
  EXPECT_EQ(lines[10],
            "tack: kernel 'print_many' printed 15 more lines than the 10 kept per launch; they were lost (set "
            "TACK_PRINT_LINES to keep more)")
      << "on " << backend();
  // The capacity is not compiled in: the same kernel keeps all 25 lines with a larger one.
  PrintLines more("30");
  EXPECT_EQ(lines_of(stderr_of([&] { k(out); })).size(), 25u) << "on " << backend();
}

TEST_P(Print, KernelsThatPrintNothingWriteNothing) {
  auto silent = tack::kernel("print_none", [](Array out) { parallel_for(out.size(), [&](Index i) { out[i] = i; }); });
  auto never = tack::kernel("print_never", [](Array out) {
    parallel_for(out.size(), [&](Index i) {
      out[i] = i;
      print_if(i < 0, "never {}", i);
    });
  });
  tack::Array out = zeros<std::int32_t>(dev(), 64);
  EXPECT_EQ(stderr_of([&] { silent(out); }), "") << "on " << backend();
  EXPECT_EQ(stderr_of([&] { never(out); }), "") << "on " << backend();
}

TEST_P(Print, DebugModeAndPrintTogether) {
  auto k = tack::kernel("print_debug", [](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) {
      print("i = {}", i);
      out[i] = in[i + 1];  // the last work-item reads past the end
    });
  });
  tack::Array in = dev().from_host(std::vector<float>{1, 2, 3, 4});
  tack::Array out = zeros<float>(dev(), 4);
  tack::set_debug(true);
  bool raised = false;
  std::string got = stderr_of([&] {
    try {
      k(out, in);
    } catch (const tack::IndexError&) {
      raised = true;
    }
  });
  tack::set_debug(false);
  EXPECT_TRUE(raised) << "no IndexError on " << backend();
  EXPECT_EQ(got, "i = 0\ni = 1\ni = 2\ni = 3\n") << "on " << backend();
}

}  // namespace
