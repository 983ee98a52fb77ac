// The CPU backend's own object loader (backends/cpu/object_loader.hpp): object
// code the Jit compiles, with libm calls (stubs and GOT slots) and constant
// pools, runs bit for bit as the same object linked by LLJIT does; the Jit's
// load() uses it without going to LLJIT unless TACK_CPU_OBJECT_LOADER=0; and each malformed, foreign or
// unresolvable object is refused with a BackendError that says what was wrong.
#include "abi/pack_layout.hpp"
#include "backends/cpu/compiler.hpp"
#include "backends/cpu/jit.hpp"
#include "backends/cpu/object_loader.hpp"
#include "passes/infer_types.hpp"
#include "passes/pipeline.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "support/scoped_env.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace tack::lang;
namespace cpu = tack::backends::cpu;
namespace ir = tack::ir;

namespace {

using ChunkFn = void (*)(const std::uint64_t* pack, std::int64_t start, std::int64_t end);

// Calls libm (sinf, expf, pow: stubs and GOT slots) and reads float and double
// constants (constant pools) in a loop with a data-dependent branch.
tack::Kernel transcendental_kernel() {
  return tack::kernel("loader_math", [](Array y, Array x) {
    parallel_for(y.size(), [&](Index i) {
      Var v = sin(x[i]) * 0.37f + exp(x[i] * 1.5f);
      if_(x[i] > 0.25f, [&] { v = v + cast<float>(pow(cast<double>(x[i]), 2.5) * 0.125); });
      y[i] = v;
    });
  });
}

struct Compiled {
  ir::Kernel typed;
  std::string object, symbol;
};

Compiled compile_for_f32_arrays(const tack::Kernel& k) {
  std::vector<tack::passes::ParamType> types(2);
  for (auto& t : types) {
    t.dtype = tack::DType::F32;
    t.rank = 1;
  }
  Compiled c{tack_test::typed_kernel(k, types), {}, {}};
  c.object = cpu::shared_jit().compile(c.typed, {}, &c.symbol);
  return c;
}

// Runs a chunk over (y, x) of n floats and returns y.
std::vector<float> run(void* entry, const ir::Kernel& typed, const std::vector<float>& x) {
  std::vector<float> y(x.size(), 0.0f), in = x;
  const tack::abi::PackLayout layout = tack::abi::pack_layout(typed);
  std::vector<std::uint64_t> pack(static_cast<std::size_t>(layout.slots), 0);
  auto put_array = [&](int param, std::vector<float>& a) {
    std::uint64_t* slot = pack.data() + layout.first_slot[static_cast<std::size_t>(param)];
    slot[0] = reinterpret_cast<std::uintptr_t>(a.data());
    slot[1] = a.size();
    slot[2] = a.size();
  };
  put_array(0, y);
  put_array(1, in);
  reinterpret_cast<ChunkFn>(entry)(pack.data(), 0, static_cast<std::int64_t>(x.size()));
  return y;
}

std::vector<float> inputs() {
  std::vector<float> x;
  for (int i = 0; i < 203; ++i) x.push_back(-2.0f + 0.021f * static_cast<float>(i));
  return x;
}

std::string refusal(const std::string& object, const std::string& symbol) {
  try {
    cpu::LoadedObject::load(object, symbol);
  } catch (const tack::BackendError& e) {
    return e.what();
  }
  return "(loaded)";
}

// The first relocation of the object's .rela.text, to patch its type.
Elf64_Rela* first_text_relocation(std::string& object) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, object.data(), sizeof eh);
  auto* sections = reinterpret_cast<Elf64_Shdr*>(object.data() + eh.e_shoff);
  for (int i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr& s = sections[i];
    if (s.sh_type == SHT_RELA && s.sh_size >= sizeof(Elf64_Rela) && (sections[s.sh_info].sh_flags & SHF_EXECINSTR))
      return reinterpret_cast<Elf64_Rela*>(object.data() + s.sh_offset);
  }
  return nullptr;
}

class ObjectLoader : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu::LoadedObject::host_supported()) GTEST_SKIP() << "the object loader reads x86-64 ELF objects only";
  }
};

TEST_F(ObjectLoader, RunsCompiledCodeBitForBitAsLljitDoes) {
  const Compiled c = compile_for_f32_arrays(transcendental_kernel());
  ASSERT_NE(c.object.find("sinf"), std::string::npos) << "the kernel should call libm";
  auto image = cpu::LoadedObject::load(c.object, c.symbol);
  ASSERT_NE(image->entry(), nullptr);
  EXPECT_GT(image->mapped_bytes(), 0u);
  const cpu::Jit::Loaded by_lljit = cpu::shared_jit().load_with_lljit(c.object, c.symbol);

  const std::vector<float> x = inputs();
  const std::vector<float> ours = run(image->entry(), c.typed, x), theirs = run(by_lljit.entry, c.typed, x);
  ASSERT_EQ(ours.size(), theirs.size());
  EXPECT_EQ(std::memcmp(ours.data(), theirs.data(), ours.size() * sizeof(float)), 0);
  // And the values are the kernel's (spot checks against the same formula in C++).
  for (std::size_t i : {std::size_t{0}, std::size_t{100}, std::size_t{202}}) {
    float v = std::sin(x[i]) * 0.37f + std::exp(x[i] * 1.5f);
    if (x[i] > 0.25f) v = v + static_cast<float>(std::pow(static_cast<double>(x[i]), 2.5) * 0.125);
    EXPECT_NEAR(ours[i], v, 1e-5f * std::max(1.0f, std::fabs(v))) << "element " << i;
  }
}

TEST_F(ObjectLoader, TheJitLoadsWithItAndNotWithLljit) {
  const Compiled c = compile_for_f32_arrays(transcendental_kernel());
  const auto lljit_before = cpu::Jit::lljit_load_count();
  const cpu::Jit::Loaded loaded = cpu::shared_jit().load(c.object, c.symbol);
  EXPECT_EQ(cpu::Jit::lljit_load_count(), lljit_before);
  ASSERT_NE(loaded.image, nullptr) << "the code is owned by a LoadedObject";
  const std::vector<float> y = run(loaded.entry, c.typed, inputs());
  EXPECT_EQ(y.size(), inputs().size());
}

// TACK_CPU_OBJECT_LOADER=0 sends every load to LLJIT (conformance.cpu_lljit_path runs the CPU's rows so),
// and a device's kernels still run.
TEST_F(ObjectLoader, TheLoaderCanBeTurnedOffForLljit) {
  tack_test::ScopedEnv off("TACK_CPU_OBJECT_LOADER", "0");
  const Compiled c = compile_for_f32_arrays(transcendental_kernel());
  const auto lljit_before = cpu::Jit::lljit_load_count();
  const cpu::Jit::Loaded loaded = cpu::shared_jit().load(c.object, c.symbol);
  EXPECT_EQ(cpu::Jit::lljit_load_count(), lljit_before + 1);
  EXPECT_EQ(loaded.image, nullptr) << "LLJIT holds the code";
  EXPECT_EQ(run(loaded.entry, c.typed, inputs()), run(cpu::LoadedObject::load(c.object, c.symbol)->entry(), c.typed,
                                                      inputs()));
  // A kernel compiled and launched through a device takes the same path.
  auto k = tack::kernel("lljit_path_axpy", [](Array y, Array x) {
    parallel_for(y.size(), [&](Index i) { y[i] = y[i] + 2.0f * x[i]; });
  });
  tack::Device cpu = tack::device("cpu");
  tack::Array y = cpu.from_host(std::vector<float>{1, 2, 3}), x = cpu.from_host(std::vector<float>{1, 1, 2});
  const auto before_call = cpu::Jit::lljit_load_count();
  k(y, x);
  EXPECT_EQ(y.to_host<float>(), (std::vector<float>{3, 4, 7}));
  EXPECT_EQ(cpu::Jit::lljit_load_count(), before_call + 1);
}

TEST_F(ObjectLoader, ManyImagesLoadAndUnloadIndependently) {
  const Compiled c = compile_for_f32_arrays(transcendental_kernel());
  const std::vector<float> x = inputs();
  auto keep = cpu::LoadedObject::load(c.object, c.symbol);
  const std::vector<float> expected = run(keep->entry(), c.typed, x);
  for (int i = 0; i < 200; ++i) {
    auto image = cpu::LoadedObject::load(c.object, c.symbol);
    if (i % 50 == 0) EXPECT_EQ(run(image->entry(), c.typed, x), expected);
  }  // each unmapped here
  EXPECT_EQ(run(keep->entry(), c.typed, x), expected);
}

TEST_F(ObjectLoader, RefusesWhatItDoesNotReadSayingWhat) {
  const Compiled c = compile_for_f32_arrays(transcendental_kernel());

  EXPECT_NE(refusal(c.object.substr(0, 20), c.symbol).find("shorter than an ELF header"), std::string::npos);
  EXPECT_NE(refusal(std::string(256, 'x'), c.symbol).find("not an ELF object"), std::string::npos);

  std::string foreign = c.object;
  const std::uint16_t aarch64 = EM_AARCH64;
  std::memcpy(foreign.data() + offsetof(Elf64_Ehdr, e_machine), &aarch64, 2);
  EXPECT_NE(refusal(foreign, c.symbol).find("not a little-endian x86-64"), std::string::npos);

  std::string shared_object = c.object;
  const std::uint16_t dyn = ET_DYN;
  std::memcpy(shared_object.data() + offsetof(Elf64_Ehdr, e_type), &dyn, 2);
  EXPECT_NE(refusal(shared_object, c.symbol).find("not a relocatable object"), std::string::npos);

  std::string cut_headers = c.object;
  const std::uint64_t far = c.object.size() + 4096;
  std::memcpy(cut_headers.data() + offsetof(Elf64_Ehdr, e_shoff), &far, 8);
  EXPECT_NE(refusal(cut_headers, c.symbol).find("outside the object"), std::string::npos);

  EXPECT_NE(refusal(c.object, "no_such_entry").find("does not define 'no_such_entry'"), std::string::npos);

  // A libm function the process does not have: the name in the string table changed.
  std::string unknown = c.object;
  const std::size_t at = unknown.find(std::string("sinf\0", 5));
  ASSERT_NE(at, std::string::npos);
  unknown.replace(at, 4, "zqzq");
  EXPECT_NE(refusal(unknown, c.symbol).find("the process has no symbol 'zqzq'"), std::string::npos);

  // A relocation kind the large code model uses and this loader does not.
  std::string large = c.object;
  Elf64_Rela* rela = first_text_relocation(large);
  ASSERT_NE(rela, nullptr);
  rela->r_info = ELF64_R_INFO(ELF64_R_SYM(rela->r_info), R_X86_64_GOTPC64);
  EXPECT_NE(refusal(large, c.symbol).find("relocation type 29 is not supported"), std::string::npos);
}

TEST_F(ObjectLoader, LljitStillLoadsWhatTheLoaderRefuses) {
  // The Jit's fallback: the same object, through LLJIT, runs as the loader's copy does.
  const Compiled c = compile_for_f32_arrays(transcendental_kernel());
  const auto before = cpu::Jit::lljit_load_count();
  const cpu::Jit::Loaded by_lljit = cpu::shared_jit().load_with_lljit(c.object, c.symbol);
  EXPECT_EQ(cpu::Jit::lljit_load_count(), before + 1);
  EXPECT_EQ(by_lljit.image, nullptr);
  auto image = cpu::LoadedObject::load(c.object, c.symbol);
  EXPECT_EQ(run(by_lljit.entry, c.typed, inputs()), run(image->entry(), c.typed, inputs()));
}

}  // namespace

namespace {

// The compiler plugin: a missing file, a library that is not the plugin, each
// refused as BackendUnavailable naming the file (the real one loads).
TEST(CompilerPlugin, AMissingOrForeignPluginIsRefusedNamingTheFile) {
  auto refused = [](const std::string& path) -> std::string {
    try {
      cpu::load_compiler_plugin(path);
    } catch (const tack::BackendUnavailable& e) {
      return e.what();
    }
    return "(loaded)";
  };
  const std::string missing = refused("/nonexistent/libtack_llvm.so");
  EXPECT_NE(missing.find("could not be loaded from /nonexistent/libtack_llvm.so"), std::string::npos) << missing;
  const std::string foreign = refused("libm.so.6");
  EXPECT_NE(foreign.find("libm.so.6 is not Tack's compiler plugin"), std::string::npos) << foreign;
  EXPECT_NO_THROW(cpu::llvm_compiler());
}

// The CPU's disk-cache keys name the plugin file (its code generator lives there, outside libtack's build
// id): the file beside libtack, found without loading it, with its size.
TEST(CompilerPlugin, TheCacheKeyNamesThePluginFile) {
  const std::string& identity = cpu::compiler_plugin_identity();
  EXPECT_NE(identity.find("libtack_llvm"), std::string::npos) << identity;
  EXPECT_NE(identity.find(" bytes, modified "), std::string::npos) << identity;
  EXPECT_EQ(identity.find("no plugin"), std::string::npos) << identity;
}

}  // namespace
