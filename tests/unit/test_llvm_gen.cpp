// The LLVM IR generator (src/codegen/llvm/llvm_gen.cpp): kernels traced through the
// real front end, typed and optimized, lowered to LLVM IR, verified, checked for
// structure (no fast-math flags but `contract`, saturating conversions, no
// division per element in N-D launches, vectorized inner loops), then optimized
// with LLVM's O3 pipeline, JIT-compiled with ORC LLJIT and run through the chunk
// wrapper against the reference interpreter on the same inputs: bit for bit,
// except where DESIGN §4 allows otherwise (contraction, transcendentals, NaN
// payloads).
#include "analysis/simd_plan.hpp"
#include "backends/cpu/llvm/pass_pipeline.hpp"
#include "codegen/identifiers.hpp"
#include "codegen/llvm/llvm_gen.hpp"
#include "interp/interpreter.hpp"
#include "ir/scalar_ops.hpp"
#include "passes/infer_types.hpp"
#include "passes/pipeline.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "support/env.hpp"
#include "support/typed_kernel.hpp"

#include <tack/tack.hpp>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tack::lang;

namespace {

using tack::DType;
namespace ir = tack::ir;
namespace abi = tack::abi;
namespace codegen = tack::codegen;
namespace interp = tack::interp;

// ---- arguments ------------------------------------------------------------------------

struct ArgSpec {
  ir::ParamKind kind = ir::ParamKind::Array;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;   // arrays
  std::vector<unsigned char> bytes;  // arrays
  ir::Bits scalar = 0;               // scalars
  std::vector<float> texels;         // textures
  std::int64_t w = 0, h = 0, d = 0;  // textures
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
};

template <class T>
ArgSpec arr(const std::vector<T>& v, std::vector<std::int64_t> shape = {}) {
  ArgSpec a;
  a.dtype = tack::dtype_of<T>;
  a.shape = shape.empty() ? std::vector<std::int64_t>{static_cast<std::int64_t>(v.size())} : shape;
  EXPECT_EQ(a.size(), static_cast<std::int64_t>(v.size()));
  a.bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

template <class T>
ArgSpec zeros(std::int64_t n) {
  return arr(std::vector<T>(static_cast<std::size_t>(n)));
}

ArgSpec zeros_of(DType t, std::int64_t n) {
  ArgSpec a;
  a.dtype = t;
  a.shape = {n};
  a.bytes.assign(static_cast<std::size_t>(n) * tack::dtype_size(t), 0);
  return a;
}

template <class T>
ArgSpec scal(T v) {
  ArgSpec a;
  a.kind = ir::ParamKind::Scalar;
  a.dtype = tack::dtype_of<T>;
  tack::KernelArg k(v);
  a.scalar = k.bits;
  return a;
}

ArgSpec tex(std::vector<float> t, std::int64_t w, std::int64_t h, std::int64_t d) {
  ArgSpec a;
  a.kind = ir::ParamKind::Texture;
  a.dtype = DType::F32;
  a.texels = std::move(t);
  a.w = w, a.h = h, a.d = d;
  return a;
}

template <class T>
std::vector<T> as(const std::vector<unsigned char>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

// ---- typing, generation, O3, JIT ----------------------------------------------------------

ir::Kernel typed_of(const tack::Kernel& k, const std::vector<ArgSpec>& specs) {
  std::vector<tack::passes::ParamType> types(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    types[i].dtype = specs[i].dtype;
    types[i].rank = specs[i].kind == ir::ParamKind::Array ? static_cast<int>(specs[i].shape.size()) : 0;
  }
  return tack_test::typed_kernel(k, types);
}

std::string print(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text of one function's definition in printed IR.
std::string function_text(const std::string& module, const std::string& name) {
  std::size_t at = module.find("define void @" + name + "(");
  if (at == std::string::npos) at = module.find("define internal void @" + name + "(");
  if (at == std::string::npos) return "";
  std::size_t end = module.find("\n}\n", at);
  return module.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The fast-math flags LLVM prints, other than `contract`.
void expect_no_fast_math(const std::string& text) {
  for (const char* flag : {" fast ", " reassoc ", " nnan ", " ninf ", " nsz ", " arcp ", " afn "})
    EXPECT_EQ(text.find(flag), std::string::npos) << "fast-math flag '" << flag << "' in:\n" << text;
}

void init_llvm() {
  static const bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)done;
}

using ChunkFn = void (*)(const std::uint64_t*, std::int64_t, std::int64_t);

struct Compiled {
  ir::Kernel typed;
  std::string ir;      // as generated
  std::string opt_ir;  // after the backend's pass pipeline
  std::unique_ptr<llvm::orc::LLJIT> jit;
  ChunkFn chunk = nullptr;
};

// The backend's own pipeline, so these tests check what the JIT runs.
using tack::backends::cpu::optimize_module;

std::unique_ptr<Compiled> compile(const tack::Kernel& k, const std::vector<ArgSpec>& specs, bool noalias = false) {
  init_llvm();
  auto c = std::make_unique<Compiled>();
  c->typed = typed_of(k, specs);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  // The path the backend would choose (ctest runs this suite once more with TACK_CPU_SIMD=0); 512-bit
  // gangs on any host, since LLVM splits vectors wider than the host's.
  const unsigned lanes = tack::analysis::plan_simd(c->typed, 512, tack::support::env_flag("TACK_CPU_SIMD")).lanes;
  codegen::LlvmModule lm = codegen::generate_llvm(c->typed, *ctx, noalias, lanes);
  EXPECT_EQ(lm.kernel_symbol, codegen::kernel_entry_name(c->typed.name));
  EXPECT_EQ(lm.chunk_symbol, codegen::chunk_entry_name(c->typed.name));
  c->ir = print(*lm.module);
  std::string err;
  llvm::raw_string_ostream os(err);
  EXPECT_FALSE(llvm::verifyModule(*lm.module, &os)) << err << "\n" << c->ir;
  expect_no_fast_math(c->ir);

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    ADD_FAILURE() << llvm::toString(jtmb.takeError());
    return c;
  }
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = jtmb->createTargetMachine();
  if (!tm) {
    ADD_FAILURE() << llvm::toString(tm.takeError());
    return c;
  }
  lm.module->setDataLayout((*tm)->createDataLayout());
  lm.module->setTargetTriple((*tm)->getTargetTriple().str());
  optimize_module(*lm.module, **tm, lanes > 0);
  c->opt_ir = print(*lm.module);
  EXPECT_FALSE(llvm::verifyModule(*lm.module, &os)) << err;
  expect_no_fast_math(c->opt_ir);

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) {
    ADD_FAILURE() << llvm::toString(jit.takeError());
    return c;
  }
  c->jit = std::move(*jit);
  if (auto e = c->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(lm.module), std::move(ctx)))) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return c;
  }
  auto sym = c->jit->lookup(lm.chunk_symbol);
  if (!sym) {
    ADD_FAILURE() << llvm::toString(sym.takeError());
    return c;
  }
  c->chunk = sym->toPtr<ChunkFn>();
  // TACK_TEST_DUMP_IR=<kernel name> prints that kernel's module before and after the pass pipeline.
  if (const char* dump = std::getenv("TACK_TEST_DUMP_IR"); dump && c->typed.name == dump)
    std::printf("---- generated ----\n%s\n---- optimized ----\n%s\n", c->ir.c_str(), c->opt_ir.c_str());
  return c;
}

// ---- running on the interpreter and the JIT ------------------------------------------------

struct Buffers {
  std::vector<std::vector<unsigned char>> arrays;  // per parameter (empty for non-arrays)
  std::vector<std::vector<float>> texels;
  explicit Buffers(const std::vector<ArgSpec>& specs) {
    for (const ArgSpec& s : specs) {
      arrays.push_back(s.bytes);
      texels.push_back(s.texels);
    }
  }
};

std::vector<interp::Arg> interp_args(const std::vector<ArgSpec>& specs, Buffers& buf) {
  std::vector<interp::Arg> args(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec& s = specs[i];
    interp::Arg& a = args[i];
    a.kind = s.kind;
    switch (s.kind) {
      case ir::ParamKind::Array:
        a.array.data = buf.arrays[i].data();
        a.array.dtype = s.dtype;
        a.array.size = s.size();
        a.array.rank = static_cast<int>(s.shape.size());
        for (std::size_t d = 0; d < s.shape.size(); ++d) a.array.shape[d] = s.shape[d];
        break;
      case ir::ParamKind::Scalar: a.scalar = s.scalar; break;
      case ir::ParamKind::Texture: a.texture = {buf.texels[i].data(), s.w, s.h, s.d}; break;
    }
  }
  return args;
}

std::vector<std::uint64_t> pack_of(const ir::Kernel& typed, const std::vector<ArgSpec>& specs, Buffers& buf) {
  abi::PackLayout layout = abi::pack_layout(typed);
  std::vector<std::uint64_t> pack(static_cast<std::size_t>(layout.slots));
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec& s = specs[i];
    auto at = static_cast<std::size_t>(layout.first_slot[i]);
    switch (s.kind) {
      case ir::ParamKind::Array:
        pack[at] = reinterpret_cast<std::uintptr_t>(buf.arrays[i].data());
        pack[at + 1] = static_cast<std::uint64_t>(s.size());
        for (std::size_t d = 0; d < s.shape.size(); ++d) pack[at + 2 + d] = static_cast<std::uint64_t>(s.shape[d]);
        break;
      case ir::ParamKind::Scalar: pack[at] = s.scalar; break;
      case ir::ParamKind::Texture:
        pack[at] = reinterpret_cast<std::uintptr_t>(buf.texels[i].data());
        pack[at + 1] = static_cast<std::uint64_t>(s.w);
        pack[at + 2] = static_cast<std::uint64_t>(s.h);
        pack[at + 3] = static_cast<std::uint64_t>(s.d);
        break;
    }
  }
  return pack;
}

std::int64_t launch_count(const ir::Kernel& typed, const std::vector<interp::Arg>& args) {
  std::int64_t n = 1;
  for (const ir::Expr& d : typed.dims) n *= static_cast<std::int64_t>(interp::eval_host(d, args));
  return n;
}

struct Outcome {
  Buffers interp, jit;
  std::int64_t count = 0;
};

// Runs the kernel on both; the JIT runs the launch as consecutive chunks split at `cuts`
// (fractions of the count), so N-D chunks start and end in the middle of rows.
Outcome run_both(const Compiled& c, const std::vector<ArgSpec>& specs, std::vector<double> cuts = {0.13, 0.5, 0.77},
                 int lanes = interp::kMaxLanes) {
  Outcome o{Buffers(specs), Buffers(specs)};
  auto iargs = interp_args(specs, o.interp);
  o.count = launch_count(c.typed, iargs);
  interp::run(c.typed, iargs, 0, o.count, lanes);
  if (!c.chunk) return o;
  auto pack = pack_of(c.typed, specs, o.jit);
  std::int64_t at = 0;
  cuts.push_back(1.0);
  for (double f : cuts) {
    std::int64_t to = std::min(o.count, static_cast<std::int64_t>(f * static_cast<double>(o.count)));
    if (to > at) c.chunk(pack.data(), at, to);
    at = std::max(at, to);
  }
  c.chunk(pack.data(), 5, 5);  // an empty chunk does nothing
  return o;
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;  // §4 says nothing of NaN payloads
    return std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(a) ==
           std::bit_cast<std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>(b);
  } else {
    return a == b;
  }
}

template <class T>
void expect_same_typed(const std::vector<unsigned char>& want, const std::vector<unsigned char>& got,
                       const std::string& what) {
  auto w = as<T>(want), g = as<T>(got);
  ASSERT_EQ(w.size(), g.size());
  int reported = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (!same_value(w[i], g[i]) && reported++ < 8) {
      ADD_FAILURE() << what << "[" << i << "]: interpreter " << +w[i] << ", llvm " << +g[i];
    }
  }
}

void expect_same(DType t, const std::vector<unsigned char>& want, const std::vector<unsigned char>& got,
                 const std::string& what) {
  switch (t) {
    case DType::F32: return expect_same_typed<float>(want, got, what);
    case DType::F64: return expect_same_typed<double>(want, got, what);
    case DType::I8: return expect_same_typed<std::int8_t>(want, got, what);
    case DType::U8: return expect_same_typed<std::uint8_t>(want, got, what);
    case DType::I16: return expect_same_typed<std::int16_t>(want, got, what);
    case DType::U16: return expect_same_typed<std::uint16_t>(want, got, what);
    case DType::I32: return expect_same_typed<std::int32_t>(want, got, what);
    case DType::U32: return expect_same_typed<std::uint32_t>(want, got, what);
    case DType::I64: return expect_same_typed<std::int64_t>(want, got, what);
    case DType::U64: return expect_same_typed<std::uint64_t>(want, got, what);
    case DType::Bool: EXPECT_EQ(want, got) << what; return;
  }
}

// Every array argument, bit for bit (NaN equals NaN).
void expect_all_same(const std::vector<ArgSpec>& specs, const Outcome& o) {
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != ir::ParamKind::Array) continue;
    expect_same(specs[i].dtype, o.interp.arrays[i], o.jit.arrays[i],
                "argument " + std::to_string(i) + " (" + std::string(tack::dtype_name(specs[i].dtype)) + ")");
  }
}

// Compiles, runs on both, compares every array exactly; returns the compiled kernel.
std::unique_ptr<Compiled> check_exact(const tack::Kernel& k, const std::vector<ArgSpec>& specs, bool noalias = false,
                                      int lanes = interp::kMaxLanes) {
  auto c = compile(k, specs, noalias);
  Outcome o = run_both(*c, specs, {0.13, 0.5, 0.77}, lanes);
  expect_all_same(specs, o);
  return c;
}

// Calls f(T{}) for each of the ten numeric dtypes.
template <class F>
void for_each_numeric(F&& f) {
  f(std::int8_t{}), f(std::uint8_t{}), f(std::int16_t{}), f(std::uint16_t{}), f(std::int32_t{}), f(std::uint32_t{});
  f(std::int64_t{}), f(std::uint64_t{}), f(float{}), f(double{});
}
template <class F>
void for_each_int(F&& f) {
  f(std::int8_t{}), f(std::uint8_t{}), f(std::int16_t{}), f(std::uint16_t{}), f(std::int32_t{}), f(std::uint32_t{});
  f(std::int64_t{}), f(std::uint64_t{});
}

template <class T>
std::vector<T> interesting_ints() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {
      L::min(), static_cast<T>(L::min() + 1), L::max(), static_cast<T>(L::max() - 1), T(0), T(1), T(2), T(3), T(7),
      T(100)};
  if constexpr (std::is_signed_v<T>) {
    for (T x : {T(-1), T(-2), T(-3), T(-7), T(-100)}) v.push_back(x);
  } else {
    v.push_back(static_cast<T>(L::max() / 2));
    v.push_back(static_cast<T>(L::max() / 2 + 1));
  }
  return v;
}

// ---- the tests ------------------------------------------------------------------------------

TEST(LlvmGen, PackLayoutSlots) {
  auto k = tack::kernel("layout", [](Array a, Scalar s, Texture3D t, Array b) {
    parallel_for(a.size(), [&](Index i) { a[i] = b(i, 0) + s + t.sample(0.0f, 0.0f, 0.0f); });
  });
  auto typed = typed_of(k, {zeros<float>(4), scal(1.0f), tex({1}, 1, 1, 1), arr(std::vector<float>(8), {4, 2})});
  abi::PackLayout p = abi::pack_layout(typed);
  EXPECT_EQ(p.first_slot, (std::vector<int>{0, 3, 4, 8}));
  EXPECT_EQ(p.slots, 12);
}

TEST(LlvmGen, SignatureNamesAndNoalias) {
  auto k = tack::kernel("sig name_1",
                        [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i]; }); });
  std::vector<ArgSpec> specs = {zeros<float>(3), zeros<float>(3), scal(2.0)};
  auto typed = typed_of(k, specs);
  llvm::LLVMContext ctx;
  auto plain = codegen::generate_llvm(typed, ctx, false);
  auto na = codegen::generate_llvm(typed, ctx, true);
  EXPECT_EQ(plain.kernel_symbol, "tack_kernel_sig_20name__1");
  EXPECT_EQ(plain.chunk_symbol, "tack_chunk_sig_20name__1");
  std::string p = print(*plain.module), n = print(*na.module);
  EXPECT_EQ(count(function_text(p, plain.kernel_symbol), "noalias"), 0);
  EXPECT_EQ(count(n.substr(0, n.find('\n', n.find("define internal void @tack_kernel"))), "noalias"), 2) << n;
  // The kernel takes (ptr, i64 size, i64 dim0) per 1-D array, the scalar by value, then start and end.
  // The kernel is internal and always inlined: only the chunk wrapper is an exported symbol.
  EXPECT_NE(p.find("define internal void @tack_kernel_sig_20name__1(ptr nocapture %a0, i64 %a0.size, i64 %a0.dim0, ptr "
                   "nocapture %a1, i64 %a1.size, i64 %a1.dim0, double %s2, i64 %start, i64 %end)"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("define void @tack_chunk_sig_20name__1(ptr nocapture readonly %pack, i64 %start, i64 %end)"),
            std::string::npos)
      << p;
}

template <class T>
void saxpy_case() {
  auto saxpy = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  const int n = 1003;
  std::vector<T> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<T>(1) / static_cast<T>(i + 3);
    y[i] = static_cast<T>(i) * static_cast<T>(0.37);
  }
  T a = static_cast<T>(1.1);
  std::vector<ArgSpec> specs = {arr(y), arr(x), scal(a)};
  auto c = compile(saxpy, specs, true);
  Outcome o = run_both(*c, specs);
  // a * x + y in one expression may fuse (§4): each element is the unfused or the fused result.
  auto got = as<T>(o.jit.arrays[0]);
  int fused = 0;
  for (int i = 0; i < n; ++i) {
    volatile T prod = a * x[i];
    T unfused = prod + y[i];
    T fma = std::fma(a, x[i], y[i]);
    EXPECT_TRUE(got[i] == unfused || got[i] == fma) << i;
    fused += got[i] != unfused;
  }
  // The product and its sum carry `contract` and nothing else; the loop vectorizes.
  EXPECT_EQ(count(c->ir, "fmul contract"), 1) << c->ir;
  EXPECT_EQ(count(c->ir, "fadd contract"), 1) << c->ir;
  EXPECT_NE(c->opt_ir.find(std::is_same_v<T, float> ? "x float>" : "x double>"), std::string::npos) << c->opt_ir;
  std::printf("saxpy %s: %d of %d elements differ from the unfused result\n", sizeof(T) == 4 ? "f32" : "f64", fused, n);
}

TEST(LlvmGen, SaxpyF32) { saxpy_case<float>(); }
TEST(LlvmGen, SaxpyF64) { saxpy_case<double>(); }

// x = y = 1 + 2^-12: x*y = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11, so x*y - (1 + 2^-11) is 0 unfused, 2^-24 fused.
TEST(LlvmGen, ContractionOnlyWithinOneExpressionAndNeverForASharedProduct) {
  auto k = tack::kernel("contract", [](Array same, Array split, Array one, Array x, Array y, Array z) {
    parallel_for(x.size(), [&](Index i) {
      Value p = x[i] * y[i];
      same[i] = p - p;  // a product with two uses never fuses: exactly 0
      Var t = x[i] * y[i];
      split[i] = t + z[i];          // across statements: never fused, exactly 0
      one[i] = x[i] * y[i] + z[i];  // one expression: may fuse
    });
  });
  const float x = 1.0f + std::ldexp(1.0f, -12), z = -(1.0f + std::ldexp(1.0f, -11));
  const int n = 64;
  std::vector<ArgSpec> specs = {zeros<float>(n),
                                zeros<float>(n),
                                zeros<float>(n),
                                arr(std::vector<float>(n, x)),
                                arr(std::vector<float>(n, x)),
                                arr(std::vector<float>(n, z))};
  auto c = compile(k, specs, true);
  Outcome o = run_both(*c, specs);
  for (float v : as<float>(o.jit.arrays[0])) EXPECT_EQ(v, 0.0f);
  for (float v : as<float>(o.jit.arrays[1])) EXPECT_EQ(v, 0.0f);
  for (float v : as<float>(o.jit.arrays[2])) EXPECT_TRUE(v == 0.0f || v == std::ldexp(1.0f, -24)) << v;
  // Only the product of `one` and its add carry the flag.
  EXPECT_EQ(count(c->ir, "fmul contract"), 1) << c->ir;
  EXPECT_EQ(count(c->ir, "fadd contract"), 1) << c->ir;
  EXPECT_EQ(count(c->ir, " contract "), 2) << c->ir;
}

template <class T>
void int_division_case() {
  auto k = tack::kernel("intdiv", [](Array q, Array r, Array fq, Array fr, Array a, Array b) {
    parallel_for(a.size(), [&](Index i) {
      Value x = a[i], y = b[i];
      q[i] = x / y;
      r[i] = x % y;
      fq[i] = floordiv(x, y);
      fr[i] = floormod(x, y);
    });
  });
  std::vector<T> vals = interesting_ints<T>(), as_, bs;
  for (T x : vals)
    for (T y : vals) as_.push_back(x), bs.push_back(y);
  auto n = static_cast<std::int64_t>(as_.size());
  std::vector<ArgSpec> specs = {zeros<T>(n), zeros<T>(n), zeros<T>(n), zeros<T>(n), arr(as_), arr(bs)};
  SCOPED_TRACE(std::string(tack::dtype_name(tack::dtype_of<T>)));
  check_exact(k, specs, true);
}

TEST(LlvmGen, IntegerDivisionEdgeCasesAllDtypes) {
  for_each_int([]<class T>(T) { int_division_case<T>(); });
}

TEST(LlvmGen, IntegerArithmeticWrapsAndShiftsMaskTheCount) {
  for_each_int([]<class T>(T) {
    SCOPED_TRACE(std::string(tack::dtype_name(tack::dtype_of<T>)));
    auto k = tack::kernel("intops", [](Array o, Array a, Array b) {
      parallel_for(a.size(), [&](Index i) {
        Value x = a[i], y = b[i];
        Index base = i * 14;
        o[base + 0] = x + y;
        o[base + 1] = x - y;
        o[base + 2] = x * y;
        o[base + 3] = x << y;
        o[base + 4] = x >> y;
        o[base + 5] = -x;
        o[base + 6] = abs(x);
        o[base + 7] = ~x;
        o[base + 8] = x & y;
        o[base + 9] = x | y;
        o[base + 10] = x ^ y;
        o[base + 11] = min(x, y);
        o[base + 12] = max(x, y);
        o[base + 13] = select(x < y, T(1), T(0)) + select(x <= y, T(2), T(0)) + select(x == y, T(4), T(0)) +
                       select(x != y, T(8), T(0)) + select(x > y, T(16), T(0)) + select(x >= y, T(32), T(0));
      });
    });
    std::vector<T> vals = interesting_ints<T>(), as_, bs;
    for (T x : vals)
      for (T y : vals) as_.push_back(x), bs.push_back(y);
    // Shift counts beyond the width and negative ones.
    for (T c : {T(8), T(9), T(15), T(16), T(17), T(31), T(32), T(33), T(63), T(64), T(65), static_cast<T>(-1)})
      as_.push_back(static_cast<T>(0x5A)), bs.push_back(c);
    auto n = static_cast<std::int64_t>(as_.size());
    check_exact(k, {zeros<T>(14 * n), arr(as_), arr(bs)}, true);
  });
}

template <class T>
std::vector<T> interesting_floats() {
  using L = std::numeric_limits<T>;
  return {T(0),           -T(0),           T(0.5),          T(-0.5),       T(1.5),
          T(2.5),         T(-2.5),         T(3.5),          T(-1),         T(1),
          T(0.49999997),  T(1e10),         T(-1e10),        T(3e9),        T(-3e9),
          T(4.2e9),       T(1e20),         T(-1e20),        L::infinity(), -L::infinity(),
          L::quiet_NaN(), -L::quiet_NaN(), L::denorm_min(), L::max(),      L::lowest(),
          T(127.5),       T(-128.5),       T(255.9),        T(65535.5),    T(-32768.7),
          T(9.3e18),      T(-9.3e18),      T(1.8e19),       T(7),          T(-7.25)};
}

TEST(LlvmGen, FloatToIntSaturatesAndNanGivesZero) {
  for (DType from : {DType::F32, DType::F64}) {
    auto k = tack::kernel("f2i", [](Array i8o, Array u8o, Array i16o, Array u16o, Array i32o, Array u32o, Array i64o,
                                    Array u64o, Array bo, Array in) {
      parallel_for(in.size(), [&](Index i) {
        Value x = in[i];
        i8o[i] = x;
        u8o[i] = x;
        i16o[i] = x;
        u16o[i] = x;
        i32o[i] = x;
        u32o[i] = x;
        i64o[i] = cast<std::int64_t>(x);
        u64o[i] = cast<std::uint64_t>(x);
        bo[i] = select(cast<bool>(x), 1, 0);  // NaN -> true
      });
    });
    ArgSpec input = from == DType::F32 ? arr(interesting_floats<float>()) : arr(interesting_floats<double>());
    std::int64_t n = input.size();
    std::vector<ArgSpec> specs = {zeros<std::int8_t>(n),  zeros<std::uint8_t>(n),
                                  zeros<std::int16_t>(n), zeros<std::uint16_t>(n),
                                  zeros<std::int32_t>(n), zeros<std::uint32_t>(n),
                                  zeros<std::int64_t>(n), zeros<std::uint64_t>(n),
                                  zeros<std::int32_t>(n), input};
    auto c = check_exact(k, specs, true);
    EXPECT_NE(c->ir.find("fptosi.sat"), std::string::npos);
    EXPECT_NE(c->ir.find("fptoui.sat"), std::string::npos);
    EXPECT_EQ(c->ir.find("fptosi "), std::string::npos) << "an unsaturated conversion is poison out of range";
    EXPECT_EQ(c->ir.find("fptoui "), std::string::npos);
    EXPECT_NE(c->ir.find("fcmp une"), std::string::npos);
  }
}

// Every cast between the ten dtypes, on values that round, overflow and wrap.
TEST(LlvmGen, CastsBetweenAllDtypes) {
  auto k = tack::kernel("casts", [](Array in, Array o0, Array o1, Array o2, Array o3, Array o4, Array o5, Array o6,
                                    Array o7, Array o8, Array o9) {
    parallel_for(in.size(), [&](Index i) {
      Value x = in[i];
      o0[i] = x, o1[i] = x, o2[i] = x, o3[i] = x, o4[i] = x;
      o5[i] = x, o6[i] = x, o7[i] = x, o8[i] = x, o9[i] = x;
    });
  });
  auto outs = [](std::int64_t n) {
    std::vector<ArgSpec> v;
    for (DType t : tack::kNumericDTypes) v.push_back(zeros_of(t, n));
    return v;
  };
  for_each_numeric([&]<class T>(T) {
    SCOPED_TRACE(std::string(tack::dtype_name(tack::dtype_of<T>)));
    std::vector<T> vals;
    if constexpr (std::is_floating_point_v<T>) {
      vals = interesting_floats<T>();
      if constexpr (sizeof(T) == 8) {
        // f64 -> f32 rounding and overflow: FLT_MAX + half an ulp goes to infinity, just below rounds down.
        double fmax = std::numeric_limits<float>::max();
        for (double d : {fmax, std::nextafter(fmax, 1e300), 340282356779733661637539395458142568448.0,
                         std::nextafter(340282356779733661637539395458142568448.0, 0.0), 1e-46, 1.0000000596046448})
          vals.push_back(d), vals.push_back(-d);
      }
    } else {
      vals = interesting_ints<T>();
      if constexpr (sizeof(T) == 8) {
        // int -> float rounding, ties to even.
        for (std::uint64_t u : {0x8000008000000000ull, 0x8000018000000000ull, 0xFFFFFFFFFFFFFFFFull, (1ull << 53) + 1,
                                (1ull << 24) + 1, (1ull << 62) + 3})
          vals.push_back(static_cast<T>(u));
      }
    }
    std::vector<ArgSpec> specs = {arr(vals)};
    for (auto& o : outs(static_cast<std::int64_t>(vals.size()))) specs.push_back(o);
    check_exact(k, specs);
  });
}

template <class T>
void float_ops_case() {
  auto k = tack::kernel("floatops", [](Array o, Array a, Array b, Array c) {
    parallel_for(a.size(), [&](Index i) {
      Value x = a[i], y = b[i], z = c[i];
      Index base = i * 24;
      o[base + 0] = min(x, y);
      o[base + 1] = max(x, y);
      o[base + 2] = x / y;
      o[base + 3] = x % y;
      o[base + 4] = floordiv(x, y);
      o[base + 5] = floormod(x, y);
      o[base + 6] = -x;
      o[base + 7] = abs(x);
      o[base + 8] = floor(x);
      o[base + 9] = ceil(x);
      o[base + 10] = round(x);
      o[base + 11] = trunc(x);
      o[base + 12] = sqrt(x);
      o[base + 13] = rsqrt(x);
      o[base + 14] = copysign(x, y);
      o[base + 15] = fma(x, y, z);
      o[base + 16] = select(isnan(x), 1, 0) + select(isinf(x), 2, 0);
      o[base + 17] = select(x < y, 1, 0) + select(x <= y, 2, 0) + select(x == y, 4, 0) + select(x != y, 8, 0) +
                     select(x > y, 16, 0) + select(x >= y, 32, 0);
      o[base + 18] = x + y;
      o[base + 19] = x - y;
      o[base + 20] = x * y;
      o[base + 21] = clamp(x, y, z);
      o[base + 22] = select(x > y, x, z);
      o[base + 23] = select(!(x < y) && (y < z || isnan(z)), 1, 0);
    });
  });
  std::vector<T> vals = {T(0),
                         -T(0),
                         T(1),
                         T(-1),
                         T(2.5),
                         T(-2.5),
                         T(0.5),
                         T(-0.5),
                         T(1.5),
                         T(3),
                         T(-7),
                         T(1e30),
                         T(-3.25),
                         std::numeric_limits<T>::infinity(),
                         -std::numeric_limits<T>::infinity(),
                         std::numeric_limits<T>::quiet_NaN(),
                         std::numeric_limits<T>::denorm_min()};
  std::vector<T> as_, bs, cs;
  for (std::size_t i = 0; i < vals.size(); ++i)
    for (std::size_t j = 0; j < vals.size(); ++j)
      as_.push_back(vals[i]), bs.push_back(vals[j]), cs.push_back(vals[(i * 7 + j * 3) % vals.size()]);
  auto n = static_cast<std::int64_t>(as_.size());
  auto c = check_exact(k, {zeros<T>(24 * n), arr(as_), arr(bs), arr(cs)}, true);
  EXPECT_NE(c->ir.find("llvm.roundeven"), std::string::npos);
  EXPECT_NE(c->ir.find("llvm.fma"), std::string::npos);
  EXPECT_EQ(c->ir.find("llvm.minnum"), std::string::npos) << "minnum may return either zero";
  EXPECT_EQ(c->ir.find("llvm.maxnum"), std::string::npos);
}

TEST(LlvmGen, FloatOperatorsMatchTheInterpreterF32) { float_ops_case<float>(); }
TEST(LlvmGen, FloatOperatorsMatchTheInterpreterF64) { float_ops_case<double>(); }

TEST(LlvmGen, MinMaxNanAndSignedZeros) {
  auto k = tack::kernel("minmax", [](Array mn, Array mx, Array a, Array b) {
    parallel_for(a.size(), [&](Index i) {
      mn[i] = min(a[i], b[i]);
      mx[i] = max(a[i], b[i]);
    });
  });
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> vals = {nan, 0.0f, -0.0f, 1.0f, -1.0f, std::numeric_limits<float>::infinity()}, as_, bs;
  for (float x : vals)
    for (float y : vals) as_.push_back(x), bs.push_back(y);
  // Repeated so the vectorized loop body is exercised, not only the remainder.
  for (int r = 0; r < 4; ++r)
    for (std::size_t i = 0; i < vals.size() * vals.size(); ++i) as_.push_back(as_[i]), bs.push_back(bs[i]);
  auto n = static_cast<std::int64_t>(as_.size());
  std::vector<ArgSpec> specs = {zeros<float>(n), zeros<float>(n), arr(as_), arr(bs)};
  auto c = compile(k, specs, true);
  Outcome o = run_both(*c, specs);
  expect_all_same(specs, o);
  auto mn = as<float>(o.jit.arrays[0]), mx = as<float>(o.jit.arrays[1]);
  for (std::int64_t i = 0; i < n; ++i) {
    float x = as_[i], y = bs[i];
    if (std::isnan(x) && !std::isnan(y)) {
      EXPECT_EQ(mn[i], y);
      EXPECT_EQ(mx[i], y);
    }
    if (std::isnan(y) && !std::isnan(x)) {
      EXPECT_EQ(mn[i], x);
      EXPECT_EQ(mx[i], x);
    }
    if (x == 0 && y == 0) {  // ties keep the first operand
      EXPECT_EQ(std::signbit(mn[i]), std::signbit(x));
      EXPECT_EQ(std::signbit(mx[i]), std::signbit(x));
    }
  }
}

TEST(LlvmGen, RoundHalfToEven) {
  auto k =
      tack::kernel("round", [](Array o, Array a) { parallel_for(a.size(), [&](Index i) { o[i] = round(a[i]); }); });
  std::vector<double> v = {0.5,  1.5,   2.5,         3.5, -0.5, -1.5, -2.5, 0.49999999999999994, 4503599627370497.0,
                           -0.0, 1e300, 2.5000000001};
  auto c = check_exact(k, {zeros<double>(static_cast<std::int64_t>(v.size())), arr(v)});
  Outcome o = run_both(*c, {zeros<double>(static_cast<std::int64_t>(v.size())), arr(v)});
  auto got = as<double>(o.jit.arrays[0]);
  EXPECT_EQ(got[0], 0.0);
  EXPECT_EQ(got[1], 2.0);
  EXPECT_EQ(got[2], 2.0);
  EXPECT_EQ(got[3], 4.0);
  EXPECT_TRUE(std::signbit(got[4]));
  EXPECT_EQ(got[6], -2.0);
}

TEST(LlvmGen, TranscendentalsWithinAFewUlp) {
  auto k = tack::kernel("transc", [](Array o, Array a, Array b) {
    parallel_for(a.size(), [&](Index i) {
      Value x = a[i], y = b[i];
      Index base = i * 16;
      o[base + 0] = exp(x), o[base + 1] = exp2(x), o[base + 2] = log(y), o[base + 3] = log2(y);
      o[base + 4] = log10(y), o[base + 5] = sin(x), o[base + 6] = cos(x), o[base + 7] = tan(x);
      o[base + 8] = asin(x * 0.1f), o[base + 9] = acos(x * 0.1f), o[base + 10] = atan(x), o[base + 11] = sinh(x);
      o[base + 12] = cosh(x), o[base + 13] = tanh(x), o[base + 14] = atan2(x, y), o[base + 15] = pow(y, x);
    });
  });
  std::vector<float> xs, ys;
  for (int i = 0; i < 200; ++i)
    xs.push_back(-9.5f + 0.0951f * static_cast<float>(i)), ys.push_back(0.01f + 0.37f * static_cast<float>(i));
  auto n = static_cast<std::int64_t>(xs.size());
  std::vector<ArgSpec> specs = {zeros<float>(16 * n), arr(xs), arr(ys)};
  auto c = compile(k, specs, true);
  Outcome o = run_both(*c, specs);
  auto want = as<float>(o.interp.arrays[0]), got = as<float>(o.jit.arrays[0]);
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
      continue;
    }
    float tol = 4 * std::fabs(std::nextafter(want[i], INFINITY) - want[i]);
    EXPECT_NEAR(got[i], want[i], tol) << "op " << i % 16 << " at " << i / 16;
  }
  for (const char* f : {"@expf", "@exp2f", "@logf", "@log2f", "@log10f", "@sinf", "@cosf", "@tanf", "@asinf", "@acosf",
                        "@atanf", "@sinhf", "@coshf", "@tanhf", "@atan2f", "@powf"})
    EXPECT_NE(c->ir.find(f), std::string::npos) << f;
}

// The N-D launch: the start is decomposed once; the innermost dimension is a clean loop.
TEST(LlvmGen, TwoDimensionalLaunch) {
  auto k = tack::kernel("nd2", [](Array out, Array in) {
    parallel_for({in.shape(0), in.shape(1)},
                 [&](Index i, Index j) { out(i, j) = in(i, j) * 3.0f + cast<float>(i * 1000 + j); });
  });
  const std::int64_t h = 37, w = 29;
  std::vector<float> in(h * w);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.25f;
  std::vector<ArgSpec> specs = {arr(std::vector<float>(h * w), {h, w}), arr(in, {h, w})};
  auto c = compile(k, specs, true);
  for (std::vector<double> cuts : {std::vector<double>{}, {0.01, 0.3, 0.31, 0.9}, {0.5}}) {
    Outcome o = run_both(*c, specs, cuts);
    expect_all_same(specs, o);
  }
  // One division and one remainder (2 dims), both before the loop; none in the optimized chunk's loop.
  std::string kern = function_text(c->ir, codegen::kernel_entry_name("nd2"));
  EXPECT_EQ(count(kern, " sdiv ") + count(kern, " udiv "), 1) << kern;
  EXPECT_EQ(count(kern, " srem ") + count(kern, " urem "), 1) << kern;
  std::string chunk = function_text(c->opt_ir, codegen::chunk_entry_name("nd2"));
  EXPECT_LE(count(chunk, " sdiv ") + count(chunk, " udiv "), 1) << chunk;
  EXPECT_NE(chunk.find("x float>"), std::string::npos) << "the inner loop vectorizes:\n" << chunk;
  EXPECT_EQ(c->opt_ir.find("@tack_kernel_nd2"), std::string::npos) << "the kernel is inlined and dropped";
}

TEST(LlvmGen, ThreeAndFourDimensionalLaunches) {
  auto k3 = tack::kernel("nd3", [](Array out, Scalar nk) {
    parallel_for({out.shape(0), out.shape(1) - 1, nk},
                 [&](Index i, Index j, Index k) { out(i, j + 1, k) = cast<std::int32_t>(i * 10000 + j * 100 + k); });
  });
  const std::int64_t a = 5, b = 7, c = 6;
  for (std::int64_t nk : {std::int64_t{6}, std::int64_t{3}, std::int64_t{1}}) {
    std::vector<ArgSpec> specs = {arr(std::vector<std::int32_t>(a * b * c, -1), {a, b, c}), scal(nk)};
    auto comp = compile(k3, specs, true);
    for (std::vector<double> cuts : {std::vector<double>{}, {0.05, 0.11, 0.5, 0.51, 0.93}}) {
      Outcome o = run_both(*comp, specs, cuts);
      expect_all_same(specs, o);
    }
    std::string kern = function_text(comp->ir, codegen::kernel_entry_name("nd3"));
    EXPECT_EQ(count(kern, " sdiv "), 2);
    EXPECT_EQ(count(kern, " srem "), 2);
  }
  // An empty dimension runs nothing.
  {
    std::vector<ArgSpec> specs = {arr(std::vector<std::int32_t>(a * b * c, -1), {a, b, c}), scal(std::int64_t{0})};
    auto comp = compile(k3, specs);
    Buffers buf(specs);
    auto pack = pack_of(comp->typed, specs, buf);
    comp->chunk(pack.data(), 0, 10);
    for (auto v : as<std::int32_t>(buf.arrays[0])) EXPECT_EQ(v, -1);
  }
  auto k4 = tack::kernel("nd4", [](Array out, Array in) {
    parallel_for({in.shape(0), in.shape(1), in.shape(2), in.shape(3)}, [&](Index i, Index j, Index k, Index l) {
      out(i, j, k, l) = in(i, j, k, l) + i * 1000 + j * 100 + k * 10 + l;
    });
  });
  std::vector<std::int64_t> shape = {3, 4, 2, 5};
  std::vector<std::int64_t> in(120);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int64_t>(i) << 20;
  std::vector<ArgSpec> specs = {arr(std::vector<std::int64_t>(120), shape), arr(in, shape)};
  auto comp = compile(k4, specs, true);
  for (std::vector<double> cuts : {std::vector<double>{}, {0.02, 0.33, 0.34, 0.6, 0.99}}) {
    Outcome o = run_both(*comp, specs, cuts);
    expect_all_same(specs, o);
  }
}

TEST(LlvmGen, WhileLoopWithBreakAndContinue) {
  auto k = tack::kernel("collatz", [](Array steps, Array sums, Array start) {
    parallel_for(start.size(), [&](Index i) {
      Var n = start[i];
      Var c = 0;
      while_([&] { return n != 1; },
             [&] {
               if_(c >= 100, [&] { break_(); });
               c += 1;
               if_(n % 2 == 0, [&] {
                 n = n / 2;
                 continue_();
               });
               n = 3 * n + 1;
             });
      steps[i] = c;
      Var acc = 0;
      for_range(0, start[i], [&](Index j) {
        if_(j % 3 == 0, [&] { continue_(); });
        if_(j > 50, [&] { break_(); });
        acc += j;
        for_range(j, j + 2, [&](Index m) { acc += m; });
      });
      sums[i] = acc;
    });
  });
  std::vector<std::int64_t> starts;
  for (std::int64_t s = 1; s < 120; ++s) starts.push_back(s);
  starts.push_back(27);  // 111 steps: hits the break
  auto n = static_cast<std::int64_t>(starts.size());
  check_exact(k, {zeros<std::int32_t>(n), zeros<std::int64_t>(n), arr(starts)});
}

TEST(LlvmGen, IfElseAndVars) {
  auto k = tack::kernel("ifelse", [](Array out, Array a) {
    parallel_for(a.size(), [&](Index i) {
      Var v = a[i];
      if_(
          v > 10.0f, [&] { v = v * 2.0f; }, [&] { if_(v < 0.0f, [&] { v = -v; }); });
      Var k = 0;
      if_(v > 100.0f, [&] { k = 1; });
      out[i] = v + cast<float>(k);
    });
  });
  std::vector<float> a;
  for (int i = -50; i < 80; ++i) a.push_back(static_cast<float>(i) * 1.7f);
  check_exact(k, {zeros<float>(static_cast<std::int64_t>(a.size())), arr(a)});
}

template <class T>
void atomics_case() {
  // One kernel per operation: old values go to `olds`, the array `acc` accumulates.
  auto make = [](int which) {
    return tack::kernel("atomics" + std::to_string(which), [which](Array olds, Array acc, Array keys, Array vals) {
      parallel_for(keys.size(), [&](Index i) {
        Value key = keys[i], v = vals[i];
        switch (which) {
          case 0: olds[i] = atomic_add(acc, key, v); break;
          case 1: olds[i] = atomic_sub(acc, key, v); break;
          case 2: olds[i] = atomic_min(acc, key, v); break;
          case 3: olds[i] = atomic_max(acc, key, v); break;
          case 4: olds[i] = atomic_exchange(acc, key, v); break;
          case 5: olds[i] = atomic_cas(acc, key, olds[i], v); break;
          case 6: olds[i] = atomic_and(acc, key, v); break;
          case 7: olds[i] = atomic_or(acc, key, v); break;
          case 8: olds[i] = atomic_xor(acc, key, v); break;
        }
      });
    });
  };
  std::vector<std::int64_t> keys;
  std::vector<T> vals, init = {T(0), T(1), T(5), static_cast<T>(-3), T(100)}, olds;
  for (int i = 0; i < 100; ++i) {
    keys.push_back((i * 7) % 5);
    vals.push_back(static_cast<T>((i * 13) % 23) -
                   static_cast<T>(std::is_signed_v<T> || std::is_floating_point_v<T> ? 11 : 0));
    olds.push_back(static_cast<T>(i % 3));
  }
  if constexpr (std::is_floating_point_v<T>) {
    vals[10] = -T(0), vals[11] = T(0), vals[12] = std::numeric_limits<T>::quiet_NaN();
    init[4] = std::numeric_limits<T>::quiet_NaN();
  }
  int ops = std::is_floating_point_v<T> ? 6 : 9;
  for (int which = 0; which < ops; ++which) {
    SCOPED_TRACE("atomic op " + std::to_string(which));
    auto k = make(which);
    std::vector<ArgSpec> specs = {arr(olds), arr(init), arr(keys), arr(vals)};
    // One lane at a time in the interpreter: the same order of read-modify-writes as a serial chunk.
    auto c = check_exact(k, specs, false, 1);
    // Cas, and float min/max (atomicrmw fmin/fmax are minnum/maxnum, loose on signed zeros), are cmpxchg.
    bool cas = which == 5 || (std::is_floating_point_v<T> && (which == 2 || which == 3));
    EXPECT_NE(c->ir.find(cas ? "cmpxchg" : "atomicrmw"), std::string::npos) << c->ir;
    EXPECT_EQ(c->ir.find("atomicrmw fmin"), std::string::npos);
    EXPECT_EQ(c->ir.find("atomicrmw fmax"), std::string::npos);
  }
}

TEST(LlvmGen, AtomicsAllOperationsAndDtypes) {
  for_each_numeric([]<class T>(T) {
    SCOPED_TRACE(std::string(tack::dtype_name(tack::dtype_of<T>)));
    atomics_case<T>();
  });
}

TEST(LlvmGen, AtomicAddIsAtomicAcrossThreads) {
  auto k = tack::kernel("hist", [](Array hist, Array fsum, Array keys) {
    parallel_for(keys.size(), [&](Index i) {
      atomic_add(hist, keys[i], 1);
      atomic_add(fsum, 0, 1.0f);
      atomic_max(fsum, 1, cast<float>(keys[i]));
    });
  });
  const std::int64_t n = 400000;
  std::vector<std::int32_t> keys(n);
  for (std::int64_t i = 0; i < n; ++i) keys[i] = static_cast<std::int32_t>((i * 31) % 8);
  std::vector<ArgSpec> specs = {zeros<std::uint16_t>(8), zeros<float>(2), arr(keys)};
  auto c = compile(k, specs, false);
  Buffers buf(specs);
  auto pack = pack_of(c->typed, specs, buf);
  std::thread t1([&] { c->chunk(pack.data(), 0, n / 2); });
  std::thread t2([&] { c->chunk(pack.data(), n / 2, n); });
  t1.join();
  t2.join();
  auto hist = as<std::uint16_t>(buf.arrays[0]);
  for (auto h : hist) EXPECT_EQ(h, n / 8);
  auto f = as<float>(buf.arrays[1]);
  EXPECT_EQ(f[0], static_cast<float>(n));
  EXPECT_EQ(f[1], 7.0f);
}

TEST(LlvmGen, TextureSampleMatchesTheInterpreterBitForBit) {
  auto k = tack::kernel("tex", [](Array out, Texture3D t, Array u, Array v, Array w) {
    parallel_for(out.size(), [&](Index i) { out[i] = t.sample(u[i], v[i], w[i]); });
  });
  const std::int64_t W = 7, H = 5, D = 3;
  std::vector<float> texels(W * H * D);
  for (std::size_t i = 0; i < texels.size(); ++i) texels[i] = std::sin(static_cast<float>(i)) * 10.0f;
  std::vector<float> us, vs, ws;
  for (int i = 0; i < 500; ++i) {
    us.push_back(-0.2f + 0.00283f * static_cast<float>(i));
    vs.push_back(std::fmod(0.137f * static_cast<float>(i), 1.3f) - 0.1f);
    ws.push_back(std::fmod(0.071f * static_cast<float>(i), 1.0f));
  }
  us.push_back(std::numeric_limits<float>::quiet_NaN()), vs.push_back(1.0f), ws.push_back(0.0f);
  us.push_back(1.0f), vs.push_back(std::numeric_limits<float>::infinity()), ws.push_back(0.5f);
  auto n = static_cast<std::int64_t>(us.size());
  check_exact(k, {zeros<float>(n), tex(texels, W, H, D), arr(us), arr(vs), arr(ws)}, true);
  // A one-texel texture.
  check_exact(k, {zeros<float>(n), tex({42.5f}, 1, 1, 1), arr(us), arr(vs), arr(ws)});
}

TEST(LlvmGen, ScalarsOfEveryDtypeReachTheKernel) {
  auto k = tack::kernel("scalars", [](Array o, Scalar a, Scalar b, Scalar c, Scalar d, Scalar e, Scalar f, Scalar g,
                                      Scalar h, Scalar x, Scalar y) {
    parallel_for(o.size(), [&](Index i) {
      o[0] = cast<double>(a), o[1] = cast<double>(b), o[2] = cast<double>(c), o[3] = cast<double>(d);
      o[4] = cast<double>(e), o[5] = cast<double>(f), o[6] = cast<double>(g), o[7] = cast<double>(h);
      o[8] = cast<double>(x), o[9] = y;
    });
  });
  std::vector<ArgSpec> specs = {zeros<double>(10),
                                scal(std::int8_t{-5}),
                                scal(std::uint8_t{250}),
                                scal(std::int16_t{-300}),
                                scal(std::uint16_t{65000}),
                                scal(std::int32_t{-70000}),
                                scal(std::uint32_t{4000000000u}),
                                scal(std::int64_t{-(1ll << 40)}),
                                scal(std::uint64_t{1ull << 63}),
                                scal(0.1f),
                                scal(-2.75)};
  auto c = check_exact(k, specs);
  Outcome o = run_both(*c, specs);
  auto got = as<double>(o.jit.arrays[0]);
  EXPECT_EQ(got[0], -5.0);
  EXPECT_EQ(got[1], 250.0);
  EXPECT_EQ(got[6], -1099511627776.0);
  EXPECT_EQ(got[7], 9223372036854775808.0);
  EXPECT_EQ(got[8], static_cast<double>(0.1f));
  EXPECT_EQ(got[9], -2.75);
}

TEST(LlvmGen, ArrayShapesAndSizes) {
  auto k = tack::kernel("shapes", [](Array o, Array m) {
    parallel_for(1, [&](Index i) {
      o[0] = m.size(), o[1] = m.shape(0), o[2] = m.shape(1), o[3] = m.shape(2);
      o[4] = m(1, 2, 3) + i;
    });
  });
  std::vector<std::int64_t> m(2 * 3 * 4);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::int64_t>(i);
  check_exact(k, {zeros<std::int64_t>(5), arr(m, {2, 3, 4})});
}

TEST(LlvmGen, SmallIntegerArraysAndMixedPromotion) {
  auto k = tack::kernel("small", [](Array o, Array a, Array b) {
    parallel_for(a.size(), [&](Index i) {
      Value x = a[i], y = b[i];
      o[i] = x * y + x / (y - 3) - (x >> 2) + cast<std::uint8_t>(y);
    });
  });
  std::vector<std::int8_t> a;
  std::vector<std::uint8_t> b;
  for (int i = 0; i < 256; ++i)
    a.push_back(static_cast<std::int8_t>(i * 37)), b.push_back(static_cast<std::uint8_t>(i));
  check_exact(k, {zeros<std::int16_t>(256), arr(a), arr(b)}, true);
}

}  // namespace
