// The C-family generators (src/codegen/c_family.cpp and its dialects) and the
// pack_scalars pass, on kernels traced through the real front end. What the
// compilers accept is checked by tests/compile_checks and what the code computes
// by the conformance suite on opencl; these tests pin the structure the
// reference requires: the 64-bit index and guard, packed scalars, contraction
// only inside one expression, saturating conversions, f64 refused on Metal, and
// tack::inspect showing every backend's source without its device.
#include "codegen/cuda_gen.hpp"
#include "codegen/hip_gen.hpp"
#include "codegen/identifiers.hpp"
#include "codegen/msl_gen.hpp"
#include "codegen/opencl_gen.hpp"
#include "ir/printer.hpp"
#include "passes/infer_types.hpp"
#include "passes/pack_scalars.hpp"
#include "passes/pipeline.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;
namespace ir = tack::ir;
namespace passes = tack::passes;
using tack::DType;

using tack_test::typed_kernel;

passes::ParamType array(DType t, int rank = 1) { return {t, rank}; }
passes::ParamType scalar(DType t) { return {t, 0}; }

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(PackScalars, OnePackPerDtypeWithEveryHostValue) {
  auto k = tack::kernel("packs", [](Array y, Array x, Scalar a, Scalar n, Scalar flag) {
    parallel_for(y.size(), [&](Index i) { y[i] = select(flag, a * x[i] + cast<float>(n), x[x.size() - 1]); });
  });
  passes::PackedKernel p = passes::pack_scalars(typed_kernel(
      k, {array(DType::F32), array(DType::F32), scalar(DType::F32), scalar(DType::I32), scalar(DType::Bool)}));
  // Packs in dtype order: bool goes to u8; i32 n; i64 for size(x); f32 a.
  std::vector<DType> dtypes;
  for (const passes::PackArray& a : p.pack.arrays) dtypes.push_back(a.dtype);
  std::vector<DType> want = {DType::U8, DType::I32, DType::I64, DType::F32};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(dtypes, want);
  for (const passes::PackArray& a : p.pack.arrays) {
    const ir::Param& param = p.kernel.params[static_cast<std::size_t>(a.param)];
    EXPECT_TRUE(param.scalar_pack);
    EXPECT_EQ(param.kind, ir::ParamKind::Array);
    EXPECT_EQ(param.rank, 1);
    EXPECT_EQ(param.dtype, a.dtype);
  }
  EXPECT_NE(p.pack.find(passes::PackSlot::Source::Scalar, 2, 0), nullptr);
  EXPECT_NE(p.pack.find(passes::PackSlot::Source::Scalar, 3, 0), nullptr);
  EXPECT_NE(p.pack.find(passes::PackSlot::Source::Scalar, 4, 0), nullptr);
  EXPECT_NE(p.pack.find(passes::PackSlot::Source::ArrayExtent, 1, ir::ArrayDim::kSize), nullptr);
  // y.size() is the launch range, resolved on the host: not packed.
  EXPECT_EQ(p.pack.find(passes::PackSlot::Source::ArrayExtent, 0, ir::ArrayDim::kSize), nullptr);
  EXPECT_EQ(p.leading_lets, 4);
  // No ScalarParam or ArrayDim is left in the body.
  EXPECT_EQ(count(ir::to_string(p.kernel.body), "size(%"), 0);
  EXPECT_EQ(count(ir::to_string(p.kernel.body), "%2"), 0) << "a scalar parameter is still read";
}

TEST(PackScalars, InnerExtentsOfAnNdRangeArePackedTheOuterIsNot) {
  auto k = tack::kernel("nd", [](Array out, Scalar rows, Scalar cols) {
    parallel_for({rows, cols}, [&](Index i, Index j) { out(i, j) = 1.0f; });
  });
  passes::PackedKernel p =
      passes::pack_scalars(typed_kernel(k, {array(DType::F32, 2), scalar(DType::I64), scalar(DType::I64)}));
  EXPECT_EQ(p.pack.find(passes::PackSlot::Source::Scalar, 1, 0), nullptr);
  EXPECT_NE(p.pack.find(passes::PackSlot::Source::Scalar, 2, 0), nullptr);
  std::string cuda = tack::codegen::generate_cuda(p).text;
  EXPECT_NE(cuda.find("__r__ % "), std::string::npos) << cuda;
}

TEST(CFamilyGen, CudaHas64BitIndexGuardAndEntryName) {
  auto k = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  auto p = passes::pack_scalars(typed_kernel(k, {array(DType::F32), array(DType::F32), scalar(DType::F32)}));
  tack::codegen::CSource s = tack::codegen::generate_cuda(p);
  EXPECT_EQ(s.entry, tack::codegen::kernel_entry_name("saxpy"));
  EXPECT_NE(s.text.find("extern \"C\" __global__ void " + s.entry +
                        "(float* a0, float* a1, const float* pack_f32, "
                        "long long __n__)"),
            std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("(long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x"), std::string::npos);
  EXPECT_NE(s.text.find("if (__i__ >= __n__) return;"), std::string::npos);
  // a * x[i] + y[i]: the product's one use is the sum of the same expression, so it may fuse.
  EXPECT_EQ(count(s.text, "__fmul_rn"), 0) << s.text;
}

TEST(CFamilyGen, CudaKeepsAProductWithAnotherUseUnfused) {
  auto k = tack::kernel("reuse", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) {
      Value p = a[i] * b[i];
      out[i] = p - p + p * 2.0f;
    });
  });
  auto typed = typed_kernel(k, {array(DType::F32), array(DType::F32), array(DType::F32)});
  std::string cuda = tack::codegen::generate_cuda(passes::pack_scalars(typed)).text;
  EXPECT_GE(count(cuda, "__fmul_rn("), 1) << cuda;
  auto typed64 = typed_kernel(k, {array(DType::F64), array(DType::F64), array(DType::F64)});
  std::string cuda64 = tack::codegen::generate_cuda(passes::pack_scalars(typed64)).text;
  EXPECT_GE(count(cuda64, "__dmul_rn("), 1) << cuda64;
  EXPECT_EQ(count(cuda64, "__fmul_rn("), 0) << cuda64;
}

TEST(CFamilyGen, HipIsCudaBehindTheHipHeader) {
  auto k = tack::kernel("h", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] + 1; }); });
  auto p = passes::pack_scalars(typed_kernel(k, {array(DType::I32)}));
  std::string hip = tack::codegen::generate_hip(p).text;
  std::string cuda = tack::codegen::generate_cuda(p).text;
  EXPECT_EQ(hip.rfind("#include <hip/hip_runtime.h>\n", 0), 0u) << hip;
  EXPECT_EQ(hip.substr(hip.find("extern")), cuda.substr(cuda.find("extern")));
}

TEST(CFamilyGen, OpenClIndexPragmasAndSaturatingConversions) {
  auto k =
      tack::kernel("conv", [](Array out, Array in) { parallel_for(out.size(), [&](Index i) { out[i] = in[i]; }); });
  std::string f32 =
      tack::codegen::generate_opencl(passes::pack_scalars(typed_kernel(k, {array(DType::I32), array(DType::F32)})))
          .text;
  EXPECT_NE(f32.find("#pragma OPENCL FP_CONTRACT OFF"), std::string::npos);
  EXPECT_EQ(f32.find("cl_khr_fp64"), std::string::npos) << "fp64 enabled without a double";
  EXPECT_NE(f32.find("(long)get_group_id(0) * (long)get_local_size(0) + (long)get_local_id(0)"), std::string::npos);
  EXPECT_NE(f32.find("convert_int_sat_rtz("), std::string::npos) << f32;
  EXPECT_EQ(f32.find("long long"), std::string::npos) << "OpenCL C has no long long";
  std::string f64 =
      tack::codegen::generate_opencl(passes::pack_scalars(typed_kernel(k, {array(DType::U8), array(DType::F64)}))).text;
  EXPECT_NE(f64.find("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), std::string::npos);
  EXPECT_NE(f64.find("convert_uchar_sat_rtz("), std::string::npos) << f64;
}

TEST(CFamilyGen, IntegerDivisionAndShiftsHaveNoUndefinedBehaviour) {
  auto k = tack::kernel("intops", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) { out[i] = a[i] / b[i] + (a[i] << b[i]) + a[i] * b[i]; });
  });
  std::string cuda = tack::codegen::generate_cuda(passes::pack_scalars(typed_kernel(
                                                      k, {array(DType::I32), array(DType::I32), array(DType::I32)})))
                         .text;
  // Division by zero and MIN / -1 spelled out; wrapping arithmetic and masked shifts in unsigned.
  EXPECT_NE(cuda.find("if (b == 0) return 0;"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("if (b == (-1)) return (int)((unsigned int)0 - (unsigned int)a);"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("<< ((unsigned int)"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find(" & 31u)"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find(" * (unsigned int)l"), std::string::npos) << cuda;
}

TEST(CFamilyGen, MetalUsesOneArgumentBufferAndRefusesF64) {
  auto k = tack::kernel("scale", [](Array y, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = y[i] * a; }); });
  std::string msl =
      tack::codegen::generate_msl(passes::pack_scalars(typed_kernel(k, {array(DType::F32), scalar(DType::F32)}))).text;
  std::string entry = tack::codegen::kernel_entry_name("scale");
  EXPECT_NE(
      msl.find("struct " + entry + "_args {\n  device float* a0;\n  device const float* pack_f32;\n  long __n__;\n};"),
      std::string::npos)
      << msl;
  EXPECT_NE(msl.find("[[buffer(0)]]"), std::string::npos);
  EXPECT_NE(msl.find("[[thread_position_in_grid]]"), std::string::npos);
  try {
    tack::codegen::generate_msl(passes::pack_scalars(typed_kernel(k, {array(DType::F64), scalar(DType::F64)})));
    FAIL() << "an f64 kernel was generated for Metal";
  } catch (const tack::TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'scale'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f64"), std::string::npos) << e.what();
  }
  // An f32 kernel computing in f64 inside is refused too.
  auto inner = tack::kernel(
      "inner", [](Array y) { parallel_for(y.size(), [&](Index i) { y[i] = cast<float>(cast<double>(y[i]) * 2.0); }); });
  EXPECT_THROW(tack::codegen::generate_msl(passes::pack_scalars(typed_kernel(inner, {array(DType::F32)}))),
               tack::TypeError);
}

TEST(CFamilyGen, WorkgroupKernelsDeclareSharedMemoryAndBarriers) {
  auto k = tack::kernel("wg", [](Array out, Array in) {
    workgroup_for(out.size(), [&](Group g) {
      auto tile = g.shared<float>(256);
      tile[g.local_id()] = in[g.group_id() * g.size() + g.local_id()];
      g.barrier();
      Value total = g.reduce_add(tile[255 - g.local_id()]);
      out[g.group_id()] = total;
    });
  });
  auto p = passes::pack_scalars(typed_kernel(k, {array(DType::F32), array(DType::F32)}));
  std::string cuda = tack::codegen::generate_cuda(p).text;
  EXPECT_NE(cuda.find("__shared__ __align__(16) float sh0[256];"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("__syncthreads();"), std::string::npos);
  EXPECT_EQ(cuda.find("if (__i__ >= __n__) return;"), std::string::npos) << "a workgroup kernel must not return early";
  std::string cl = tack::codegen::generate_opencl(p).text;
  EXPECT_NE(cl.find("__local float sh0[256] __attribute__((aligned(16)));"), std::string::npos) << cl;
  EXPECT_NE(cl.find("reqd_work_group_size(256, 1, 1)"), std::string::npos);
  std::string msl = tack::codegen::generate_msl(p).text;
  EXPECT_NE(msl.find("threadgroup float sh0[256] __attribute__((aligned(16)));"), std::string::npos) << msl;
  EXPECT_NE(msl.find("threadgroup_barrier("), std::string::npos);
}

// 8- and 16-bit atomics update the containing 32-bit word; shared arrays of them are whole words.
TEST(CFamilyGen, SubwordAtomicsUseTheContainingWord) {
  auto k = tack::kernel("bytes", [](Array counts) {
    workgroup_for(1, [&](Group g) {
      auto local = g.shared<std::int8_t>(5);
      atomic_add(local, 0, 1);
      atomic_max(counts, g.local_id() % counts.size(), 3);
    });
  });
  auto p = passes::pack_scalars(typed_kernel(k, {array(DType::I16)}));
  for (const std::string& src : {tack::codegen::generate_cuda(p).text, tack::codegen::generate_opencl(p).text,
                                 tack::codegen::generate_msl(p).text}) {
    EXPECT_NE(src.find("tack_atomic_add_i8_shared("), std::string::npos) << src;
    EXPECT_NE(src.find("tack_atomic_max_i16("), std::string::npos) << src;
    EXPECT_NE(src.find("0xFFu << shift"), std::string::npos) << src;
    EXPECT_NE(src.find("0xFFFFu << shift"), std::string::npos) << src;
    EXPECT_NE(src.find("sh0[8]"), std::string::npos) << "5 bytes round up to two words\n" << src;
  }
}

TEST(CFamilyGen, NonFiniteAndNegativeZeroLiteralsAreExact) {
  auto k = tack::kernel("lits", [](Array out) {
    parallel_for(out.size(),
                 [&](Index i) { out[i] = select(out[i] > 0.0f, std::numeric_limits<float>::infinity(), -0.0f); });
  });
  auto p = passes::pack_scalars(typed_kernel(k, {array(DType::F32)}));
  std::string cuda = tack::codegen::generate_cuda(p).text;
  EXPECT_NE(cuda.find("__uint_as_float(0x7f800000u)"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("(-0x0p+0f)"), std::string::npos) << cuda;
  std::string cl = tack::codegen::generate_opencl(p).text;
  EXPECT_NE(cl.find("as_float(0x7f800000u)"), std::string::npos) << cl;
}

// DESIGN §7 / issue: a user with no GPU can read every backend's source.
TEST(InspectSource, EveryBackendWithoutItsDevice) {
  auto k = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  tack::ArraySpec f32{DType::F32, 1};
  struct Case {
    const char* backend;
    const char* marker;
  };
  for (Case c : {Case{"cuda", "__global__ void"}, Case{"hip", "#include <hip/hip_runtime.h>"},
                 Case{"level_zero", "__kernel void"}, Case{"opencl", "__kernel void"}, Case{"metal", "kernel void"}}) {
    tack::Inspection in = tack::inspect(k, c.backend, f32, f32, 2.0f);
    EXPECT_NE(in.source.find(c.marker), std::string::npos) << c.backend << ":\n" << in.source;
    EXPECT_NE(in.source.find(tack::codegen::kernel_entry_name("saxpy")), std::string::npos) << c.backend;
    EXPECT_FALSE(in.typed_ir.empty());
  }
  // Metal's refusal of f64 is the call's refusal: a TypeError naming the backend.
  EXPECT_THROW(tack::inspect(k, "metal", tack::ArraySpec{DType::F64, 1}, tack::ArraySpec{DType::F64, 1}, 2.0),
               tack::TypeError);
}

}  // namespace
