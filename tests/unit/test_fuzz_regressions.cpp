// Bugs found by the front-end fuzzer (tests/fuzz/libfuzzer, scripts/libfuzzer.sh),
// each reproduced through the public API. A user's mistake must become a
// tack::Error; before its fix each of these aborted the process instead.
// The shrunk fuzzer input of each is a seed in tests/fuzz/libfuzzer/corpus/.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <optional>
#include <source_location>
#include <string>

using namespace tack::lang;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Traces the kernel; returns the InvalidArgument's message ("(no error)" if none).
template <class F>
std::string trace_error(F fn) {
  auto k = tack::kernel("late_var", fn);
  try {
    (void)k.ir();
  } catch (const tack::InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

// corpus/regress_var_after_launch_body: a Var declared inside parallel_for and
// kept (here in a std::optional) was read after the body ended. The read is a
// Let statement with no open block: "internal error at
// src/lang/trace_context.cpp: !blocks_.empty()" and abort().
TEST(FuzzRegression, VarReadAfterTheParallelForBodyEndedIsAnError) {
  std::string e = trace_error([](Array a) {
    std::optional<Var> kept;
    // (emplace would give the Var the line inside <optional>; name this one.)
    parallel_for(a.size(), [&](Index i) { kept.emplace(a[i], std::source_location::current()); });
    Value late = *kept;
    (void)late;
  });
  EXPECT_TRUE(contains(e, "kernel 'late_var'")) << e;
  EXPECT_TRUE(contains(e, "uses a Var declared at")) << e;
  EXPECT_TRUE(contains(e, "test_fuzz_regressions.cpp")) << e;
  EXPECT_TRUE(contains(e, "after the parallel_for/workgroup_for body it was declared in has ended")) << e;
}

// The same Var, reached through the other calls that read or assign it.
TEST(FuzzRegression, VarUsedAfterTheParallelForBodyEndedIsAnErrorInEveryForm) {
  auto expect_late_var_error = [](auto misuse) {
    std::string e = trace_error([misuse](Array a) {
      std::optional<Var> kept;
      parallel_for(a.size(), [&](Index i) { kept.emplace(a[i]); });
      misuse(*kept);
    });
    EXPECT_TRUE(contains(e, "a Var declared at")) << e;
    EXPECT_TRUE(contains(e, "body it was declared in has ended")) << e;
  };
  expect_late_var_error([](Var& v) { v += 1; });            // compound assignment reads it first
  expect_late_var_error([](Var& v) { v = 2; });             // plain assignment
  expect_late_var_error([](Var& v) { Var copy = v; });      // a copy is a new declaration from a read
  expect_late_var_error([](Var& v) { v = Value(v) * 2; });  // read on the right-hand side
  expect_late_var_error([](Var& v) { (void)v.value(); });
}

TEST(FuzzRegression, VarUsedAfterTheWorkgroupForBodyEndedIsAnError) {
  std::string e = trace_error([](Array a) {
    std::optional<Var> kept;
    workgroup_for(1, [&](Group g) { kept.emplace(g.local_id()); });
    Var copy = *kept;
  });
  EXPECT_TRUE(contains(e, "uses a Var declared at")) << e;
  EXPECT_TRUE(contains(e, "body it was declared in has ended")) << e;
}

// Inside the launch body, a Var kept past its if_ is still reported as before.
TEST(FuzzRegression, VarKeptPastItsIfBodyKeepsItsMessage) {
  std::string e = trace_error([](Array a) {
    parallel_for(a.size(), [&](Index i) {
      std::optional<Var> kept;
      if_(i > 0, [&] { kept.emplace(a[i]); });
      a[i] = *kept;
    });
  });
  EXPECT_TRUE(contains(e, "uses a Var declared at")) << e;
  EXPECT_TRUE(contains(e, "inside an if_/for_range/while_ body that has ended")) << e;
}

}  // namespace
