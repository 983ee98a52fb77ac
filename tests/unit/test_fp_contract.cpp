// KernelOptions::fp_contract and TACK_FP_CONTRACT (docs/language.md, "Kernel
// options"): the option is not vacuous (by default the cpu backend fuses where
// DESIGN §4 allows, with the option off it does not), it is part of every
// variant's key (in memory and on disk), the variable is honoured and a
// malformed value refused, and each backend's code and compile options say
// which mode they were made for. What the code computes on every backend is
// tests/conformance/no_contraction.cpp.
#include "backends/cuda/nvrtc_compile.hpp"
#include "backends/hip/hiprtc_compile.hpp"
#include "support/scoped_env.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;
using tack::DType;
using tack_test::ScopedEnv;

const tack::KernelOptions kOff{.fp_contract = false};
const tack::KernelOptions kOn{.fp_contract = true};

auto axpy_body() {
  return [](Array out, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) { out[i] = a[i] * b[i] + c[i]; });
  };
}

// Rows where a*b + c rounds differently fused: 1 + k*2^-12 squared needs more than f32's 24 bits.
struct Rows {
  std::vector<float> a, b, c, fused, unfused;
};
Rows rows() {
  Rows r;
  for (int k = 1; k <= 16; ++k) {
    const float x = 1.0f + std::ldexp(static_cast<float>(k), -12);
    r.a.push_back(x);
    r.b.push_back(x);
    r.c.push_back(-1.0f);
    volatile float p = x * x;  // rounded to f32, whatever the host compiler's contraction setting
    r.unfused.push_back(p + -1.0f);
    r.fused.push_back(std::fma(x, x, -1.0f));
  }
  return r;
}

std::vector<float> run_cpu(const tack::Kernel& k, const Rows& r) {
  tack::Device cpu = tack::device("cpu");
  tack::Array out = cpu.zeros(DType::F32, {static_cast<std::int64_t>(r.a.size())});
  k(out, cpu.from_host(r.a), cpu.from_host(r.b), cpu.from_host(r.c));
  return out.to_host<float>();
}

bool host_has_fma() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("fma");
#else
  return true;  // aarch64 and the others Tack's CPU backend targets fuse in hardware
#endif
}

tack::Inspection inspect_f32(const tack::Kernel& k, std::string_view backend) {
  const tack::ArraySpec f32{DType::F32, 1};
  return tack::inspect(k, backend, f32, f32, f32, f32);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(FpContract, TheCpuFusesByDefaultAndNotWithTheOptionOff) {
  if (!host_has_fma()) GTEST_SKIP() << "this CPU has no FMA instruction, so the default cannot fuse here either";
  const Rows r = rows();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < r.a.size(); ++i) differ += r.fused[i] != r.unfused[i];
  ASSERT_GE(differ, r.a.size() / 2) << "the rows must be ones where fusing changes the result";
  EXPECT_EQ(run_cpu(tack::kernel("axpy_default", axpy_body()), r), r.fused);
  EXPECT_EQ(run_cpu(tack::kernel("axpy_on", kOn, axpy_body()), r), r.fused);
  EXPECT_EQ(run_cpu(tack::kernel("axpy_off", kOff, axpy_body()), r), r.unfused);
}

TEST(FpContract, TheLlvmIrCarriesNoContractFlagWithTheOptionOff) {
  const std::string on = inspect_f32(tack::kernel("axpy_ir", kOn, axpy_body()), "cpu").source;
  const std::string off = inspect_f32(tack::kernel("axpy_ir", kOff, axpy_body()), "cpu").source;
  EXPECT_GE(count(on, "contract"), 2) << on;  // the product and its sum
  EXPECT_EQ(count(off, "contract"), 0) << off;
  EXPECT_EQ(count(off, "fmuladd"), 0) << off;
}

TEST(FpContract, TheModeIsInTheIrAndSoInEveryKey) {
  const tack::Kernel on = tack::kernel("axpy_key", axpy_body());
  const tack::Kernel off = tack::kernel("axpy_key", kOff, axpy_body());
  EXPECT_EQ(on.ir().find("fp_contract"), std::string::npos) << "a default kernel's IR is as before the option";
  EXPECT_NE(off.ir().find("fp_contract off\n"), std::string::npos) << off.ir();
  const std::string typed_on = inspect_f32(on, "interp").typed_ir, typed_off = inspect_f32(off, "interp").typed_ir;
  EXPECT_NE(typed_off.find("fp_contract off\n"), std::string::npos) << typed_off;
  EXPECT_NE(typed_on, typed_off) << "the typed IR is the disk cache's `code` field";
}

// Two kernels that differ only in the option never share a compiled variant: not in the backend's memory (its
// key is the IR's hash), not on disk (its key holds the typed IR's text). The name is new in every run, so the
// disk cache of an earlier run cannot answer either kernel.
TEST(FpContract, KernelsDifferingOnlyInTheOptionShareNoVariant) {
  if (!host_has_fma()) GTEST_SKIP() << "this CPU has no FMA instruction: both modes give the same bits";
  const Rows r = rows();
  const std::string name =
      "axpy_variant_" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  for (bool off_first : {false, true}) {
    SCOPED_TRACE(off_first ? "off first" : "on first");
    const std::string n = name + (off_first ? "_b" : "_a");
    const tack::Kernel on = tack::kernel(n, axpy_body());
    const tack::Kernel off = tack::kernel(n, kOff, axpy_body());
    const tack::Kernel first = off_first ? off : on, second = off_first ? on : off;
    run_cpu(first, r);
    const tack::CompileStats before = tack::compile_stats();
    const std::vector<float> got = run_cpu(second, r);
    const tack::CompileStats after = tack::compile_stats();
    EXPECT_EQ(got, off_first ? r.fused : r.unfused);
    EXPECT_EQ(after.variants, before.variants + 1) << "the second kernel found the first's variant in memory";
    EXPECT_EQ(after.disk_hits, before.disk_hits) << "the second kernel found the first's variant on disk";
  }
}

TEST(FpContract, TackFpContractIsHonouredWhenAKernelIsMade) {
  for (const char* value : {"0", "off", "OFF", "false", "No"}) {
    ScopedEnv env("TACK_FP_CONTRACT", value);
    EXPECT_NE(tack::kernel("env_off", axpy_body()).ir().find("fp_contract off"), std::string::npos) << value;
    EXPECT_EQ(tack::kernel("env_off_on", kOn, axpy_body()).ir().find("fp_contract"), std::string::npos)
        << "the option wins over the variable";
  }
  for (const char* value : {"1", "on", "True", "yes", ""}) {
    ScopedEnv env("TACK_FP_CONTRACT", value);
    EXPECT_EQ(tack::kernel("env_on", axpy_body()).ir().find("fp_contract"), std::string::npos) << value;
    EXPECT_NE(tack::kernel("env_on_off", kOff, axpy_body()).ir().find("fp_contract off"), std::string::npos);
  }
  // Read when the kernel is made: a kernel keeps its mode after the variable changes.
  std::optional<tack::Kernel> made;
  {
    ScopedEnv env("TACK_FP_CONTRACT", "0");
    made = tack::kernel("env_kept", axpy_body());
  }
  EXPECT_NE(made->ir().find("fp_contract off"), std::string::npos);
  if (host_has_fma()) {
    const Rows r = rows();
    EXPECT_EQ(run_cpu(*made, r), r.unfused);
  }
}

TEST(FpContract, AMalformedTackFpContractIsRefused) {
  ScopedEnv env("TACK_FP_CONTRACT", "banana");
  try {
    tack::kernel("env_bad", axpy_body());
    ADD_FAILURE() << "TACK_FP_CONTRACT=banana was accepted";
  } catch (const tack::InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("TACK_FP_CONTRACT='banana'"), std::string::npos) << what;
    EXPECT_NE(what.find("off"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(tack::kernel("env_bad_but_set", kOff, axpy_body())) << "an explicit option does not read it";
}

// The GPU dialects: the option reaches the source (MSL's pragma; CUDA's and HIP's products written
// __fmul_rn, which no compiler fuses) and the compile options (NVRTC --fmad, hipRTC -ffp-contract). Compiled
// by the real compilers in tests/compile_checks.
TEST(FpContract, EachDialectSaysTheMode) {
  const tack::Kernel on = tack::kernel("axpy_src", axpy_body());
  const tack::Kernel off = tack::kernel("axpy_src", kOff, axpy_body());
  for (const char* dialect : {"cuda", "hip"}) {
    SCOPED_TRACE(dialect);
    EXPECT_EQ(count(inspect_f32(on, dialect).source, "__fmul_rn("), 0) << "a product in its sum may fuse";
    EXPECT_EQ(count(inspect_f32(off, dialect).source, "__fmul_rn("), 1) << inspect_f32(off, dialect).source;
  }
  for (const char* dialect : {"opencl", "level_zero"}) {
    SCOPED_TRACE(dialect);
    EXPECT_EQ(count(inspect_f32(on, dialect).source, "#pragma OPENCL FP_CONTRACT OFF"), 1);
    EXPECT_EQ(count(inspect_f32(off, dialect).source, "#pragma OPENCL FP_CONTRACT OFF"), 1);
  }
  EXPECT_EQ(count(inspect_f32(on, "metal").source, "FP_CONTRACT"), 0);
  EXPECT_EQ(count(inspect_f32(off, "metal").source, "#pragma STDC FP_CONTRACT OFF"), 1)
      << inspect_f32(off, "metal").source;

  auto joined = [](const auto& options) {
    std::string s;
    for (const char* o : options) s += std::string(o) + " ";
    return s;
  };
  EXPECT_NE(joined(tack::backends::cuda::nvrtc_options(true)).find("--fmad=true"), std::string::npos);
  EXPECT_NE(joined(tack::backends::cuda::nvrtc_options(false)).find("--fmad=false"), std::string::npos);
  EXPECT_EQ(joined(tack::backends::cuda::nvrtc_options(false)).find("--fmad=true"), std::string::npos);
  EXPECT_EQ(joined(tack::backends::hip::hiprtc_options(true)), "-ffp-contract=on ");
  EXPECT_EQ(joined(tack::backends::hip::hiprtc_options(false)), "-ffp-contract=off ");
}

// What NVRTC makes of it (without a GPU: PTX for sm_90): the default's a*b + c is one fma, fp_contract off's a
// rounded product and a sum.
TEST(FpContract, NvrtcFusesOnlyByDefault) {
  const std::string on = inspect_f32(tack::kernel("axpy_ptx", axpy_body()), "cuda").source;
  const std::string off = inspect_f32(tack::kernel("axpy_ptx", kOff, axpy_body()), "cuda").source;
  std::string ptx_on, ptx_off;
  try {
    ptx_on = tack::backends::cuda::compile_ptx(on, "tack_axpy_ptx", true, {"--gpu-architecture=sm_90"});
    ptx_off = tack::backends::cuda::compile_ptx(off, "tack_axpy_ptx", false, {"--gpu-architecture=sm_90"});
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << "NVRTC is not available here: " << e.what();
  }
  EXPECT_EQ(count(ptx_on, "fma.rn.f32"), 1) << ptx_on;
  EXPECT_EQ(count(ptx_off, "fma.rn.f32"), 0) << ptx_off;
  EXPECT_EQ(count(ptx_off, "mul.rn.f32"), 1) << ptx_off;
}

}  // namespace
