// The tracing front end: what IR a kernel function records, and the trace-time
// errors for misuse of the kernel language.
#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <string>
#include <vector>

using namespace tack::lang;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Trace, SaxpyRecordsLoadsBeforeTheStore) {
  auto k = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  std::string ir = k.ir();
  EXPECT_TRUE(contains(ir, "kernel saxpy(%0: Array, %1: Array, %2: Scalar)")) << ir;
  EXPECT_TRUE(contains(ir, "parallel_for [size(%0)]")) << ir;
  EXPECT_TRUE(contains(ir, "load %1[index0]")) << ir;
  EXPECT_TRUE(contains(ir, "store %0[index0] = add(mul(%2, t")) << ir;
  // Loads come before the store that uses them.
  EXPECT_LT(ir.find("load"), ir.find("store")) << ir;
}

TEST(Trace, IsDoneOnceAndFreezesCapturedValues) {
  int traced = 0;
  float factor = 2.0f;
  auto k = tack::kernel("scale", [&](Array y) {
    ++traced;
    parallel_for(y.size(), [&](Index i) { y[i] = y[i] * factor; });
  });
  EXPECT_EQ(traced, 0) << "tracing waits for the first use";
  std::string first = k.ir();
  factor = 5.0f;
  std::string second = k.ir();
  EXPECT_EQ(traced, 1);
  EXPECT_EQ(first, second);
  EXPECT_TRUE(contains(first, "weak.f32(2)")) << first;
}

TEST(Trace, NdParallelForFlattensRowMajor) {
  auto k = tack::kernel("copy2d", [](Array out, Array in) {
    parallel_for({in.shape(0), in.shape(1)}, [&](Index i, Index j) { out(i, j) = in(i, j); });
  });
  std::string ir = k.ir();
  EXPECT_TRUE(contains(ir, "parallel_for [shape(%1, 0), shape(%1, 1)]")) << ir;
  EXPECT_TRUE(contains(ir, "[add(mul(index0, shape(%1, 1)), index1)]/2")) << ir;
}

TEST(Trace, WhileBecomesLoopWithBreak) {
  auto k = tack::kernel("count", [](Array out, Scalar n) {
    parallel_for(out.size(), [&](Index i) {
      Var c = 0;
      while_([&] { return c < n; }, [&] { c += 1; });
      out[i] = c;
    });
  });
  std::string ir = k.ir();
  EXPECT_TRUE(contains(ir, "loop {")) << ir;
  EXPECT_TRUE(contains(ir, "if lt(t")) << ir;
  EXPECT_TRUE(contains(ir, "} else {")) << ir;
  EXPECT_TRUE(contains(ir, "break")) << ir;
}

TEST(Trace, CppLoopsOverIntsUnroll) {
  auto k = tack::kernel("unrolled", [](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) {
      Value acc = 0.0f;
      for (int t = 0; t < 3; ++t) acc = acc + in[i] * t;
      out[i] = acc;
    });
  });
  std::string ir = k.ir();
  EXPECT_TRUE(contains(ir, "weak.i32(2)")) << ir;
  EXPECT_FALSE(contains(ir, "for t")) << "a C++ for loop leaves no IR loop: " << ir;
}

TEST(Trace, HelperFunctionsInline) {
  auto sq = [](const Value& v) { return v * v; };
  auto k = tack::kernel("helper",
                        [&](Array out, Array in) { parallel_for(out.size(), [&](Index i) { out[i] = sq(in[i]); }); });
  EXPECT_TRUE(contains(k.ir(), "mul(t0, t0)")) << k.ir();
}

TEST(Trace, TypeErrorsNameTheSourceLine) {
  int line = 0;
  auto k = tack::kernel("where", [&](Array out, Array in) {
    parallel_for(out.size(), [&](Index i) {
      line = __LINE__ + 1;
      out[i] = sqrt(in[i]);
    });
  });
  try {
    tack::inspect(k, "interp", tack::ArraySpec{tack::DType::I32, 1}, tack::ArraySpec{tack::DType::I32, 1});
    FAIL() << "sqrt of an integer must be refused";
  } catch (const tack::TypeError& e) {
    std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "test_trace.cpp:" + std::to_string(line))) << msg;
    EXPECT_TRUE(contains(msg, "kernel 'where'")) << msg;
    EXPECT_TRUE(contains(msg, "sqrt needs a float operand")) << msg;
  }
}

// ---- trace-time errors -------------------------------------------------------

template <class F>
std::string trace_error(F fn) {
  auto k = tack::kernel("bad", fn);
  try {
    (void)k.ir();
  } catch (const tack::InvalidArgument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TraceErrors, NoParallelFor) {
  std::string e = trace_error([](Array) {});
  EXPECT_TRUE(contains(e, "no parallel_for")) << e;
}

TEST(TraceErrors, TwoParallelFors) {
  std::string e = trace_error([](Array a) {
    parallel_for(a.size(), [&](Index i) { a[i] = 1; });
    parallel_for(a.size(), [&](Index i) { a[i] = 2; });
  });
  EXPECT_TRUE(contains(e, "exactly one")) << e;
}

TEST(TraceErrors, NestedParallelFor) {
  std::string e = trace_error(
      [](Array a) { parallel_for(a.size(), [&](Index) { parallel_for(a.size(), [&](Index j) { a[j] = 1; }); }); });
  EXPECT_TRUE(contains(e, "inside another parallel_for")) << e;
}

TEST(TraceErrors, StatementOutsideTheLoop) {
  std::string e = trace_error([](Array a) {
    Var v = 1;
    parallel_for(a.size(), [&](Index i) { a[i] = v; });
  });
  EXPECT_TRUE(contains(e, "inside the kernel's parallel_for")) << e;
}

TEST(TraceErrors, BreakOutsideALoop) {
  std::string e = trace_error([](Array a) { parallel_for(a.size(), [&](Index) { break_(); }); });
  EXPECT_TRUE(contains(e, "break_() outside")) << e;
}

TEST(TraceErrors, ValueEscapingItsBranch) {
  std::string e = trace_error([](Array a) {
    parallel_for(a.size(), [&](Index i) {
      Value v = 0;
      if_(i > 0, [&] { v = a[i]; });
      a[i] = v + 1;
    });
  });
  EXPECT_TRUE(contains(e, "inside an if_/for_range/while_ body that has ended")) << e;
  EXPECT_TRUE(contains(e, "test_trace.cpp")) << e;
}

TEST(TraceErrors, WrongNumberOfIndicesForTheBody) {
  std::string e = trace_error([](Array a) {
    parallel_for({a.shape(0), a.shape(1), a.shape(0)}, [&](Index i, Index j) { a(i, j) = 1; });
  });
  EXPECT_TRUE(contains(e, "needs a body taking 3 Index arguments")) << e;
}

TEST(TraceErrors, SharedMemoryLimit) {
  std::string e = trace_error([](Array a) {
    workgroup_for(1, [&](Group g) {
      auto s = g.shared<double>(8192);
      s[g.local_id()] = 1.0;
    });
  });
  EXPECT_TRUE(contains(e, "at most 49152 bytes")) << e;
}

TEST(TraceErrors, LanguageOutsideAKernel) {
  EXPECT_THROW(if_(Value(1) < 2, [] {}), tack::InvalidArgument);
  EXPECT_THROW(break_(), tack::InvalidArgument);
}

}  // namespace

namespace {
TEST(TraceErrors, PureValueAssignedInsideABranch) {
  std::string e = trace_error([](Array a) {
    parallel_for(a.size(), [&](Index i) {
      Value v = a[i];
      if_(i > 0, [&] { v = v * 2; });
      a[i] = v;
    });
  });
  EXPECT_TRUE(contains(e, "assigning a C++ Value inside a body does not make it conditional")) << e;
}

TEST(Trace, ValuesComputedInsideABodyAreFineThere) {
  auto k = tack::kernel("inside", [](Array a) {
    parallel_for(a.size(), [&](Index i) {
      Var v = a[i];
      if_(i > 0, [&] {
        Value doubled = v * 2;
        if_(doubled > 3, [&] { v = doubled; });
      });
      a[i] = v;
    });
  });
  EXPECT_NO_THROW(k.ir());
  // And they compute what the body says where it runs: element 0 is left alone, the others doubled where the
  // double is over 3.
  const std::vector<float> in = {5.0f, 1.0f, 1.5f, 2.0f, -4.0f, 3.0f};
  const std::vector<float> want = {5.0f, 1.0f, 1.5f, 4.0f, -4.0f, 6.0f};
  for (const char* device : {"interp", "cpu"}) {
    tack::Device d;
    try {
      d = tack::device(device);
    } catch (const tack::BackendUnavailable&) {
      continue;  // a build without LLVM: interp alone
    }
    tack::Array a = d.from_host(in);
    k(a);
    EXPECT_EQ(a.to_host<float>(), want) << "on " << device;
  }
}
}  // namespace
