// Differential fuzzing (DESIGN §7): for each seed, a random well-typed kernel
// (kernel_generator.hpp) and random inputs full of edge values run on the
// reference interpreter and on every other backend of this build; the outputs
// must agree under DESIGN §4: integers bit for bit, floats bit for bit except
// that any NaN equals any NaN (§4 leaves NaN payloads open). No tolerance is
// needed anywhere, because the generator avoids what §4 leaves to the backend
// (contraction, transcendentals, order-dependent atomics).
//
// A third of the seeds make workgroup kernels (barriers, shared memory, group
// reductions) where every backend taking part runs workgroups.
//
// On a mismatch the kernel is shrunk while the mismatch persists and printed
// as C++, with the inputs and both outputs; the run then fails.
//
//   tack_fuzz                  seeds 1..200 (TACK_FUZZ_START, TACK_FUZZ_SEEDS); OpenCL
//                              on every 5th seed (TACK_FUZZ_EVERY_OPENCL=1: all)
//   tack_fuzz --seed=N         one seed, printing its kernel
//   tack_fuzz --start=S --seeds=K
//   tack_fuzz --no-contract    kernels made with KernelOptions::fp_contract off, float
//                              products anywhere (in sums above all): still bit for bit
#include "fuzz/kernel_generator.hpp"

#include <tack/tack.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {
using tack::DType;
using namespace tack::fuzz;

using Bits = std::vector<std::uint64_t>;  // one array's elements, as bits of its dtype

// ---- inputs -------------------------------------------------------------------

struct Inputs {
  Bits arrays[5];
};

std::uint64_t mask_to(DType t, std::uint64_t v) {
  int w = tack::dtype_bits(t);
  return w >= 64 ? v : v & ((std::uint64_t{1} << w) - 1);
}
std::uint64_t fbits(DType t, double v) {
  return t == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v)) : std::bit_cast<std::uint64_t>(v);
}

Inputs make_inputs(const Program& p) {
  std::mt19937_64 rng(p.seed ^ 0xD1B54A32D192ED03ull);
  auto u = [&](std::uint64_t n) { return rng() % n; };
  Inputs in;
  for (int a = 0; a < 5; ++a) {
    DType t = p.arrays[a];
    for (std::int64_t j = 0; j < p.n; ++j) {
      std::uint64_t b;
      if (a == 4 && tack::is_float(t)) {
        b = fbits(t, static_cast<double>(static_cast<int>(u(17)) - 8));  // float atomics: small integers
      } else if (tack::is_float(t) && !p.fp_contract && u(100) < 50) {
        // The no-contract mode: half the elements with every mantissa bit set at random, so a product is
        // inexact and a fused a*b + c would round differently from the interpreter's.
        const double m = 1.0 + static_cast<double>(rng() >> 11) * 0x1p-53;
        b = fbits(t, std::ldexp(u(2) ? m : -m, static_cast<int>(u(9)) - 4));
      } else if (tack::is_float(t)) {
        bool f32 = t == DType::F32;
        const double edges[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1.0, -1.0, 0.5,
                                f32 ? std::numeric_limits<float>::denorm_min() : std::numeric_limits<double>::denorm_min(),
                                f32 ? -std::numeric_limits<float>::min() * 0.75 : -std::numeric_limits<double>::min() * 0.75,
                                f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max(),
                                f32 ? std::numeric_limits<float>::lowest() : std::numeric_limits<double>::lowest(),
                                3e9, -2.5, 300.5, 65536.0};
        if (u(100) < 40) b = fbits(t, edges[u(std::size(edges))]);
        else if (u(2)) b = fbits(t, static_cast<double>(static_cast<int>(u(41)) - 20));
        else b = fbits(t, std::ldexp(static_cast<double>(u(1u << 24)) - (1 << 23), static_cast<int>(u(60)) - 40));
      } else {
        int w = tack::dtype_bits(t);
        std::uint64_t smin = std::uint64_t{1} << (w - 1);
        const std::uint64_t edges[] = {0, 1, ~std::uint64_t{0}, smin, smin - 1, 2, 7};
        if (u(100) < 40) b = edges[u(std::size(edges))];
        else if (u(2)) b = static_cast<std::uint64_t>(static_cast<std::int64_t>(u(41)) - 20);
        else b = rng();
        b = mask_to(t, b);
      }
      in.arrays[a].push_back(b);
    }
  }
  return in;
}

// ---- moving bits to and from devices ----------------------------------------------

template <class F>
decltype(auto) with_type(DType t, F&& f) {
  switch (t) {
    case DType::I8: return f(std::int8_t{});
    case DType::U8: return f(std::uint8_t{});
    case DType::I16: return f(std::int16_t{});
    case DType::U16: return f(std::uint16_t{});
    case DType::I32: return f(std::int32_t{});
    case DType::U32: return f(std::uint32_t{});
    case DType::I64: return f(std::int64_t{});
    case DType::U64: return f(std::uint64_t{});
    case DType::F32: return f(float{});
    default: return f(double{});
  }
}

template <class T>
T from_bits(std::uint64_t b) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(static_cast<std::uint32_t>(b));
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(b);
  else return static_cast<T>(b);
}
template <class T>
std::uint64_t to_bits(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(v);
  else if constexpr (std::is_same_v<T, double>) return std::bit_cast<std::uint64_t>(v);
  else return mask_to(tack::dtype_of<T>, static_cast<std::uint64_t>(v));
}

tack::Array upload(const tack::Device& d, DType t, const Bits& bits) {
  return with_type(t, [&]<class T>(T) {
    std::vector<T> v;
    for (auto b : bits) v.push_back(from_bits<T>(b));
    return d.from_host(v);
  });
}
Bits download(const tack::Array& a) {
  return with_type(a.dtype(), [&]<class T>(T) {
    Bits out;
    for (T v : a.to_host<T>()) out.push_back(to_bits(v));
    return out;
  });
}

std::string show(DType t, std::uint64_t b) {
  if (!tack::is_float(t)) return value_text(t, b);
  char buf[80];
  double v = t == DType::F32 ? std::bit_cast<float>(static_cast<std::uint32_t>(b)) : std::bit_cast<double>(b);
  std::snprintf(buf, sizeof buf, "%.17g (%a)", v, v);
  return buf;
}

// ---- running and comparing -------------------------------------------------------

struct Outcome {
  std::optional<std::string> error;  // the exception a backend raised, if any
  Bits arrays[5];
};

Outcome run_on(const tack::Device& d, const tack::Kernel& k, const Program& p, const Inputs& in) {
  Outcome o;
  try {
    tack::Array arr[5];
    for (int a = 0; a < 5; ++a) arr[a] = upload(d, p.arrays[a], in.arrays[a]);
    with_type(p.scalar, [&]<class T>(T) {
      const tack::KernelArg args[] = {arr[0], arr[1], arr[2], arr[3], arr[4], tack::KernelArg(from_bits<T>(p.scalar_bits))};
      k.launch(args);
    });
    for (int a = 0; a < 5; ++a) o.arrays[a] = download(arr[a]);
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

bool same(DType t, std::uint64_t a, std::uint64_t b) {
  if (t == DType::F32) {
    float x = std::bit_cast<float>(static_cast<std::uint32_t>(a)), y = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  } else if (t == DType::F64) {
    double x = std::bit_cast<double>(a), y = std::bit_cast<double>(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  }
  return a == b;
}

const char* kArrayNames[5] = {"out0", "out1", "in0", "in1", "at0"};

// Empty when the two agree; else a description of the differences.
std::string differences(const Program& p, const Outcome& ref, const Outcome& got, const std::string& backend) {
  if (ref.error || got.error) {
    if (ref.error && got.error) return {};  // both refused the kernel alike
    return "interp: " + ref.error.value_or("ran") + "\n" + backend + ": " + got.error.value_or("ran") + "\n";
  }
  std::string msg;
  for (int a = 0; a < 5; ++a)
    for (std::size_t j = 0; j < ref.arrays[a].size(); ++j)
      if (!same(p.arrays[a], ref.arrays[a][j], got.arrays[a][j]))
        msg += "  " + std::string(kArrayNames[a]) + "[" + std::to_string(j) + "]: interp " + show(p.arrays[a], ref.arrays[a][j]) +
               ", " + backend + " " + show(p.arrays[a], got.arrays[a][j]) + "\n";
  return msg;
}

struct Backend {
  std::string name;
  tack::Device dev;
  std::int64_t every = 1;  // runs seeds divisible by this (see main)
  double seconds = 0;
  int runs = 0;
};

std::string mismatch(const Program& p, const Inputs& in, const tack::Device& ref, const Backend& b) {
  tack::Kernel k = make_kernel(p);
  Outcome r = run_on(ref, k, p, in);
  if (r.error) return {};  // a shrunk candidate the interpreter refuses is no reproducer
  return differences(p, r, run_on(b.dev, k, p, in), b.name);
}

// ---- shrinking ------------------------------------------------------------------

// The k-th candidate edit of one kind, applied in place; false when there are
// fewer than k + 1 candidates. Kinds: 0 drop a statement; 1 replace an
// if_/for_range/while_ by its body; 2 replace an expression by a zero constant;
// 3 replace an expression by an operand of the same dtype.
struct Edit {
  int kind;
  int k;
  int seen = 0;
};

Expr zero_of(DType t) {
  Expr z;
  z.type = t;
  if (t == DType::Bool) {  // false: 0 != 0
    Expr c;
    c.type = DType::I32;
    z.op = Op::Ne;
    z.kids = {c, c};
  }
  return z;
}

bool edit_expr(Expr& x, Edit& ed) {
  bool is_zero_const = x.op == Op::Const && x.bits == 0;
  if (ed.kind == 2 && !is_zero_const && !(x.type == DType::Bool && x.op == Op::Ne && x.kids[0].op == Op::Const) &&
      ed.seen++ == ed.k) {
    x = zero_of(x.type);
    return true;
  }
  if (ed.kind == 3) {
    for (auto& kid : x.kids)
      if (kid.type == x.type) {
        if (ed.seen++ == ed.k) {
          Expr keep = kid;
          x = std::move(keep);
          return true;
        }
        break;
      }
  }
  for (auto& kid : x.kids)
    if (edit_expr(kid, ed)) return true;
  return false;
}

bool edit_stmts(std::vector<Stmt>& b, Edit& ed) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (ed.kind == 0 && ed.seen++ == ed.k) {
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    Stmt& s = b[i];
    bool compound = s.kind == StmtKind::If || s.kind == StmtKind::For || s.kind == StmtKind::While;
    if (ed.kind == 1 && compound && ed.seen++ == ed.k) {
      std::vector<Stmt> inner = std::move(s.body);
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(i));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(i), inner.begin(), inner.end());
      return true;
    }
    if (ed.kind >= 2) {
      bool uses_b = s.kind == StmtKind::AtomicShared || s.kind == StmtKind::AtomicPrivate;
      bool uses_c = s.kind == StmtKind::AtomicPrivate && s.aop == AtomicOp::Cas;
      bool uses_a = s.kind != StmtKind::AtomicPrivate;
      if ((uses_a && edit_expr(s.a, ed)) || (uses_b && edit_expr(s.b, ed)) || (uses_c && edit_expr(s.c, ed))) return true;
    }
    if (edit_stmts(s.body, ed) || edit_stmts(s.else_body, ed)) return true;
  }
  return false;
}

Program shrink(Program cur, const std::function<bool(const Program&)>& still_fails) {
  auto start = std::chrono::steady_clock::now();
  int tries = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (int kind = 0; kind < 4; ++kind) {
      for (int k = 0;; ++k) {
        if (++tries > 600 || std::chrono::steady_clock::now() - start > std::chrono::seconds(120)) return cur;
        Program c = cur;
        Edit ed{kind, k};
        if (!edit_stmts(c.body, ed)) break;
        if (!well_formed(c) || !still_fails(c)) continue;
        cur = std::move(c);
        progress = true;
        --k;  // the next candidate now has this number
      }
    }
  }
  return cur;
}

std::string show_inputs(const Program& p, const Inputs& in) {
  std::string s;
  for (int a = 0; a < 5; ++a) {
    s += "  " + std::string(kArrayNames[a]) + " (" + short_type(p.arrays[a]) + ") = {";
    for (std::size_t j = 0; j < in.arrays[a].size(); ++j) s += (j ? ", " : "") + value_text(p.arrays[a], in.arrays[a][j]);
    s += "}\n";
  }
  return s;
}

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t start = env_int("TACK_FUZZ_START", 1);
  std::int64_t count = env_int("TACK_FUZZ_SEEDS", 200);
  bool verbose = false;
  bool single = false;  // --seed=N runs every backend on it
  bool all_backends = false;  // --all: every seed on every backend (the ctest), whatever TACK_FUZZ_EVERY_* say
  bool fp_contract = true;    // --no-contract: the generator's no-contract mode
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    auto value = [&](const char* prefix) { return std::strtoll(arg.c_str() + std::strlen(prefix), nullptr, 10); };
    if (arg.rfind("--seed=", 0) == 0) { start = value("--seed="); count = 1; verbose = true; single = true; }
    else if (arg.rfind("--start=", 0) == 0) start = value("--start=");
    else if (arg.rfind("--seeds=", 0) == 0) count = value("--seeds=");
    else if (arg == "--print") verbose = true;
    else if (arg == "--all") all_backends = true;
    else if (arg == "--no-contract") fp_contract = false;
    else {
      std::fprintf(stderr, "usage: %s [--seed=N | --start=S --seeds=K] [--print] [--all] [--no-contract]\n", argv[0]);
      return 2;
    }
  }

  tack::Device ref = tack::device("interp");
  std::vector<Backend> backends;
  GeneratorLimits limits{ref.capabilities().supported_dtypes, ref.capabilities().supported_atomic_dtypes,
                         ref.capabilities().supports_workgroups};
  // The generator makes numeric arrays and scalars (bool is only the type of its conditions);
  // bool arrays are checked across backends by conformance/bool_arrays.cpp.
  std::erase(limits.dtypes, DType::Bool);
  auto keep_common = [](std::vector<DType>& mine, const std::vector<DType>& theirs) {
    std::erase_if(mine, [&](DType t) { return std::find(theirs.begin(), theirs.end(), t) == theirs.end(); });
  };
  for (const std::string& name : tack::backend_names()) {
    if (name == "interp") continue;
    try {
      tack::Device d = tack::device(name);
      keep_common(limits.dtypes, d.capabilities().supported_dtypes);
      keep_common(limits.atomic_dtypes, d.capabilities().supported_atomic_dtypes);
      limits.workgroups = limits.workgroups && d.capabilities().supports_workgroups;
      // PoCL builds take most of the run (~0.1-0.7 s per kernel uncached on
      // 2 cores), so by default OpenCL checks every 5th seed and the CPU every
      // seed; TACK_FUZZ_EVERY_<NAME>=1 (e.g. TACK_FUZZ_EVERY_OPENCL) checks all.
      std::string var = "TACK_FUZZ_EVERY_";
      for (char c : name) var += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::int64_t every = std::max<std::int64_t>(1, env_int(var.c_str(), name == "opencl" && !all_backends ? 5 : 1));
      backends.push_back({name, d, every});
    } catch (const tack::BackendUnavailable& e) {
      std::printf("[fuzz] skipping backend '%s': %s\n", name.c_str(), e.what());
    }
  }
  std::erase(limits.atomic_dtypes, DType::Bool);
  if (backends.empty()) {
    // Comparing interp with itself would check nothing: ctest shows 77 as skipped.
    std::printf("[fuzz] skipped: no backend besides interp can run here\n");
    return 77;
  }
  std::printf("[fuzz] seeds %lld..%lld against interp on:", static_cast<long long>(start),
              static_cast<long long>(start + count - 1));
  for (const auto& b : backends)
    std::printf(b.every == 1 ? " %s" : " %s (every %lld. seed)", b.name.c_str(), static_cast<long long>(b.every));
  std::printf(limits.workgroups ? "; workgroup kernels at seeds divisible by 3" : "; no workgroup kernels");
  std::printf(fp_contract ? "\n" : "; no contraction (float products anywhere)\n");

  auto t0 = std::chrono::steady_clock::now();
  int failures = 0;
  double interp_seconds = 0;
  for (std::int64_t seed = start; seed < start + count; ++seed) {
    Program p = generate(static_cast<std::uint64_t>(seed), limits, fp_contract);
    Inputs in = make_inputs(p);
    if (verbose) std::printf("%s", to_cpp(p).c_str());
    tack::Kernel k = make_kernel(p);
    auto ti = std::chrono::steady_clock::now();
    Outcome r = run_on(ref, k, p, in);
    interp_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - ti).count();
    if (r.error) {
      std::printf("[fuzz] seed %lld: the interpreter refused a generated kernel (a generator bug):\n%s\n%s",
                  static_cast<long long>(seed), r.error->c_str(), to_cpp(p).c_str());
      ++failures;
      continue;
    }
    for (Backend& b : backends) {
      if (!single && seed % b.every != 0) continue;
      auto tb = std::chrono::steady_clock::now();
      Outcome got = run_on(b.dev, k, p, in);
      b.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
      ++b.runs;
      std::string diff = differences(p, r, got, b.name);
      if (diff.empty()) continue;
      ++failures;
      std::printf("[fuzz] seed %lld: %s disagrees with interp; shrinking...\n", static_cast<long long>(seed), b.name.c_str());
      std::fflush(stdout);
      Program small = shrink(p, [&](const Program& c) { return !mismatch(c, in, ref, b).empty(); });
      std::printf("---- shrunk kernel (reproduce with: tack_fuzz --seed=%lld%s) ----\n%s", static_cast<long long>(seed),
                  fp_contract ? "" : " --no-contract", to_cpp(small).c_str());
      std::printf("---- inputs ----\n%s", show_inputs(small, in).c_str());
      std::string small_diff = mismatch(small, in, ref, b);
      std::printf("---- differences ----\n%s\n", (small_diff.empty() ? diff : small_diff).c_str());
      std::fflush(stdout);
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[fuzz] %lld seeds, %d failures, %.1f s (interp %.1f s", static_cast<long long>(count), failures, secs,
              interp_seconds);
  for (const auto& b : backends) std::printf(", %s %d kernels %.1f s", b.name.c_str(), b.runs, b.seconds);
  std::printf(")\n");
  return failures ? 1 : 0;
}
