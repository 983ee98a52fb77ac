// The hardware texture path of the CUDA and HIP generators (reference:
// Textures): a Texture3D parameter with Param::hardware_texture set is taken by
// value as the dialect's texture object, and a sample is tex3D<float> at each
// coordinate moved to the hardware's texel centres, (u * (N - 1) + 0.5) / N,
// N the extent on that axis (u the width, the array's fastest-varying index).
// The generated source is compiled with NVRTC for sm_90 and with hipRTC for
// gfx90a where they are installed, and skipped with the reason where not.
#include "backends/cuda/nvrtc_compile.hpp"
#include "backends/hip/hiprtc_compile.hpp"
#include "codegen/cuda_gen.hpp"
#include "codegen/hip_gen.hpp"
#include "codegen/msl_gen.hpp"
#include "codegen/opencl_gen.hpp"
#include "drivers/rtc_api.hpp"
#include "ir/printer.hpp"
#include "passes/infer_types.hpp"
#include "passes/pack_scalars.hpp"
#include "passes/pipeline.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "runtime/memory/access.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;
namespace ir = tack::ir;
namespace passes = tack::passes;
using tack::DType;

// out[i] = t.sample(u[i], v[i], w[i]) with out, u, v, w f32 arrays and t parameter 1.
tack::Kernel sample_kernel() {
  return tack::kernel("tex_hw_sample", [](Array out, Texture3D t, Array u, Array v, Array w) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(u[i], v[i], w[i]); });
  });
}

// Typed and optimized as runtime::specialize makes it, the texture parameter in hardware or not.
passes::PackedKernel packed(const tack::Kernel& k, bool hardware) {
  const passes::ParamType f32{DType::F32, 1};
  ir::Kernel typed =
      passes::infer_types(tack::detail::Access::impl(k)->traced(), {f32, {DType::F32, 0}, f32, f32, f32});
  typed.params[1].hardware_texture = hardware;
  return passes::pack_scalars(passes::optimize(typed));
}

std::string let_of_extent(const passes::PackedKernel& p, int dim) {
  const passes::PackSlot* s = p.pack.find(passes::PackSlot::Source::TextureExtent, 1, dim);
  EXPECT_NE(s, nullptr);
  return s ? "l" + std::to_string(s->let) : "";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

void expect_hardware_shape(const tack::codegen::CSource& src, const passes::PackedKernel& p,
                           const std::string& handle) {
  const std::string& s = src.text;
  // The parameter: the texture object by value, in the texture parameter's place (the second).
  EXPECT_NE(s.find(src.entry + "(float* a0, " + handle + " t1, "), std::string::npos) << s;
  // The sample: tex3D<float> at the moved coordinates, u with the width, v the height, w the depth.
  EXPECT_NE(s.find("tack_texture_sample_hw(" + handle +
                   " t, long long w, long long h, long long d, float u, "
                   "float v, float s)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("return tex3D<float>(t, tack_texel_centre(u, w), tack_texel_centre(v, h), "
                   "tack_texel_centre(s, d));"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("return (c * (float)(n - 1) + 0.5f) / (float)n;"), std::string::npos) << s;
  // Clamped first, as in software: NaN to 0, nothing outside [0, 1].
  EXPECT_NE(s.find("const float c = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;"), std::string::npos) << s;
  // Called with the packed extents width, height, depth in that order.
  EXPECT_NE(s.find("tack_texture_sample_hw(t1, " + let_of_extent(p, 0) + ", " + let_of_extent(p, 1) + ", " +
                   let_of_extent(p, 2) + ", "),
            std::string::npos)
      << s;
  // No software sampling, no pointer for the texture.
  EXPECT_EQ(count(s, "tack_texture_sample("), 0) << s;
  EXPECT_EQ(count(s, "const float* t1"), 0) << s;
}

TEST(TextureCodegen, CudaHardwareSample) {
  passes::PackedKernel p = packed(sample_kernel(), true);
  tack::codegen::CSource src = tack::codegen::generate_cuda(p);
  expect_hardware_shape(src, p, "cudaTextureObject_t");
}

TEST(TextureCodegen, HipHardwareSample) {
  passes::PackedKernel p = packed(sample_kernel(), true);
  tack::codegen::CSource src = tack::codegen::generate_hip(p);
  expect_hardware_shape(src, p, "hipTextureObject_t");
  EXPECT_EQ(count(src.text, "cudaTextureObject_t"), 0) << src.text;  // hipRTC rejects CUDA's spelling
}

TEST(TextureCodegen, SoftwareSampleUnchanged) {
  passes::PackedKernel p = packed(sample_kernel(), false);
  for (const std::string& s : {tack::codegen::generate_cuda(p).text, tack::codegen::generate_hip(p).text}) {
    EXPECT_NE(s.find("const float* t1"), std::string::npos) << s;
    EXPECT_NE(s.find("tack_texture_sample(t1, "), std::string::npos) << s;
    EXPECT_EQ(count(s, "tex3D"), 0) << s;
    EXPECT_EQ(count(s, "TextureObject_t"), 0) << s;
  }
}

// Metal (docs/backends-metal.md): the texture is a texture3d<float> field of the argument buffer, sampled through a
// program-scope constexpr sampler (normalized, linear, clamp to edge) at the moved coordinates.
TEST(TextureCodegen, MetalHardwareSample) {
  passes::PackedKernel p = packed(sample_kernel(), true);
  const std::string s = tack::codegen::generate_msl(p).text;
  EXPECT_NE(s.find("  texture3d<float> t1;\n"), std::string::npos) << s;
  EXPECT_EQ(count(s, "constexpr sampler tack_sampler(coord::normalized, filter::linear, address::clamp_to_edge);"), 1)
      << s;
  EXPECT_NE(s.find("tack_texture_sample_hw(texture3d<float> t, long w, long h, long d, float u, float v, float s)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("return t.sample(tack_sampler, float3(tack_texel_centre(u, w), tack_texel_centre(v, h), "
                   "tack_texel_centre(s, d))).x;"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("return (c * (float)(n - 1) + 0.5f) / (float)n;"), std::string::npos) << s;
  EXPECT_NE(s.find("tack_texture_sample_hw(__args.t1, " + let_of_extent(p, 0) + ", " + let_of_extent(p, 1) + ", " +
                   let_of_extent(p, 2) + ", "),
            std::string::npos)
      << s;
  EXPECT_EQ(count(s, "tack_texture_sample("), 0) << s;
  EXPECT_EQ(count(s, "const float* t1"), 0) << s;
}

TEST(TextureCodegen, MetalSoftwareSampleHasNoSampler) {
  const std::string s = tack::codegen::generate_msl(packed(sample_kernel(), false)).text;
  EXPECT_NE(s.find("device const float* t1;"), std::string::npos) << s;
  EXPECT_NE(s.find("tack_texture_sample(__args.t1, "), std::string::npos) << s;
  EXPECT_EQ(count(s, "sampler"), 0) << s;
  EXPECT_EQ(count(s, "texture3d"), 0) << s;
}

// OpenCL C for level_zero's images: a read_only image3d_t parameter, one program-scope constant sampler, read_imagef.
TEST(TextureCodegen, OpenclHardwareSample) {
  passes::PackedKernel p = packed(sample_kernel(), true);
  const std::string s = tack::codegen::generate_opencl(p).text;
  EXPECT_NE(s.find("(__global float* a0, read_only image3d_t t1, "), std::string::npos) << s;
  EXPECT_EQ(count(s,
                  "__constant sampler_t tack_sampler = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | "
                  "CLK_FILTER_LINEAR;"),
            1)
      << s;
  EXPECT_NE(s.find("return read_imagef(t, tack_sampler, (float4)(tack_texel_centre(u, w), tack_texel_centre(v, h), "
                   "tack_texel_centre(s, d), 0.0f)).x;"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("return (c * (float)(n - 1) + 0.5f) / (float)n;"), std::string::npos) << s;
  EXPECT_EQ(count(s, "tack_texture_sample("), 0) << s;
  const std::string sw = tack::codegen::generate_opencl(packed(sample_kernel(), false)).text;
  EXPECT_EQ(count(sw, "sampler"), 0) << sw;
  EXPECT_EQ(count(sw, "image3d_t"), 0) << sw;
}

// Two textures, one in hardware and one not (a HIP device may keep one and not the other), both sampled.
TEST(TextureCodegen, MixedTexturesEachTheirOwnPath) {
  auto k = tack::kernel("tex_mixed", [](Array out, Texture3D a, Texture3D b) {
    parallel_for(out.size(), [&](Index i) { out[i] = a.sample(0.25f, 0.5f, 0.75f) + b.sample(0.5f, 0.5f, 0.5f); });
  });
  ir::Kernel typed =
      passes::infer_types(tack::detail::Access::impl(k)->traced(), {{DType::F32, 1}, {DType::F32, 0}, {DType::F32, 0}});
  typed.params[1].hardware_texture = true;
  tack::codegen::CSource src = tack::codegen::generate_cuda(passes::pack_scalars(passes::optimize(typed)));
  EXPECT_NE(src.text.find("(float* a0, cudaTextureObject_t t1, const float* t2, "), std::string::npos) << src.text;
  EXPECT_NE(src.text.find("tack_texture_sample_hw(t1, "), std::string::npos) << src.text;
  EXPECT_NE(src.text.find("tack_texture_sample(t2, "), std::string::npos) << src.text;
}

// tack::inspect shows the code the device compiles: CUDA, HIP, Metal and Level Zero sample in hardware (their
// source-only stand-ins answer as a device does within its limits), OpenCL in software.
TEST(TextureCodegen, InspectShowsEachTargetsPath) {
  tack::Device host = tack::device("interp");
  tack::Texture tex = tack::texture3d(host.from_host(std::vector<float>(24, 1.0f)), {4, 3, 2});
  auto k = sample_kernel();
  tack::ArraySpec f32{DType::F32, 1};
  const std::pair<const char*, const char*> hardware[] = {{"cuda", "tex3D<float>("},
                                                          {"hip", "tex3D<float>("},
                                                          {"metal", "t.sample(tack_sampler, float3("},
                                                          {"level_zero", "read_imagef(t, tack_sampler, "}};
  for (const auto& [name, fetch] : hardware) {
    tack::Inspection in = tack::inspect(k, name, f32, tex, f32, f32, f32);
    EXPECT_NE(in.typed_ir.find("Texture3D<f32, hardware>"), std::string::npos) << name << ":\n" << in.typed_ir;
    EXPECT_NE(in.source.find(fetch), std::string::npos) << name << ":\n" << in.source;
  }
  for (const char* name : {"opencl"}) {
    tack::Inspection in = tack::inspect(k, name, f32, tex, f32, f32, f32);
    EXPECT_NE(in.typed_ir.find("Texture3D<f32, software>"), std::string::npos) << name << ":\n" << in.typed_ir;
    EXPECT_NE(in.source.find("tack_texture_sample("), std::string::npos) << name << ":\n" << in.source;
  }
}

TEST(TextureCodegen, CudaHardwareSampleCompilesWithNvrtc) {
  tack::codegen::CSource src = tack::codegen::generate_cuda(packed(sample_kernel(), true));
  std::string ptx;
  try {
    ptx = tack::backends::cuda::compile_ptx(src.text, src.entry, true, {"--gpu-architecture=sm_90"});
  } catch (const tack::BackendUnavailable& e) {
    GTEST_SKIP() << "NVRTC is not available here: " << e.what();
  }
  // The texture object is a 64-bit parameter and the sample a hardware 3D fetch.
  EXPECT_NE(ptx.find(".param .u64 " + src.entry + "_param_1"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("tex.3d.v4.f32.f32"), std::string::npos) << ptx;
}

// hipRTC runs in a child process: Debian's ROCm 5 comgr, which hipRTC loads, links the shared libLLVM-15 that
// PoCL (loaded by the opencl tests in this binary) also brings, and both register clang's options there, so
// LLVM aborts the whole process
// ("Option ... registered more than once"). In a child, that conflict skips this test with the reason instead.
TEST(TextureCodegen, HipHardwareSampleCompilesWithHiprtc) {
  tack::codegen::CSource src = tack::codegen::generate_hip(packed(sample_kernel(), true));
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  std::fflush(nullptr);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    dup2(pipe_fds[1], 2);  // the child's stderr, LLVM's abort message included, goes to the parent
    int rc = 0;
    std::string message;
    try {
      std::string why;
      if (!tack::drivers::hiprtc(&why)) {
        message = "hipRTC is not available here: " + why;
        rc = 77;
      } else if (tack::backends::hip::compile_code_object(src.text, src.entry, true, {"--offload-arch=gfx90a"})
                     .empty()) {
        message = "hipRTC returned an empty code object";
        rc = 1;
      }
    } catch (const tack::BackendUnavailable& e) {
      message = std::string("hipRTC is not available here: ") + e.what();
      rc = 77;
    } catch (const std::exception& e) {
      message = e.what();
      rc = 1;
    }
    if (!message.empty()) {
      ssize_t n = write(2, message.data(), message.size());
      (void)n;
    }
    _exit(rc);
  }
  close(pipe_fds[1]);
  std::string log;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) log.append(buf, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << log;
  if (WIFSIGNALED(status) && log.find("registered more than once") != std::string::npos)
    GTEST_SKIP() << "hipRTC cannot load beside this binary's LLVM: " << log;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "hipRTC failed:\n" << log;
}

}  // namespace
