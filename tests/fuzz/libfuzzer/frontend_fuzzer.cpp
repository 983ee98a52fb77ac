// The libFuzzer target tack_libfuzzer: turns bytes into calls of the kernel
// front end (tack::lang inside tack::kernel, then tack::inspect with decoded
// arguments) and feeds the result through tracing, type inference, the passes
// (each verified: TACK_VERIFY=1) and code generation for every dialect,
// including the CPU backend's LLVM IR. Nothing is launched.
//
// The bytes may describe anything a user could write: wrong dtypes, wrong
// argument counts and kinds, ranks and dimensions out of range, break_ outside
// a loop, a barrier in divergent control flow, values used outside the scope
// that made them. Every such mistake must become a tack::Error; any other
// exception, a crash, a hang or a sanitizer report is a bug in Tack.
// Built and run by scripts/libfuzzer.sh; docs/reliability.md says how to run it long.
#include <tack/tack.hpp>

#include <signal.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {
using namespace tack::lang;
using tack::DType;
using LArray = tack::lang::Array;

// Reads the input front to back; past its end every read gives 0, so any
// prefix of an input is an input too (libFuzzer's mutations stay meaningful).
class Bytes {
 public:
  explicit Bytes(const std::string& s) : s_(s) {}
  std::uint8_t u8() { return pos_ < s_.size() ? static_cast<std::uint8_t>(s_[pos_++]) : 0; }
  std::uint64_t u64(int n) {  // n little-endian bytes
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{u8()} << (8 * i);
    return v;
  }
  unsigned pick(unsigned n) { return u8() % n; }
  bool done() const { return pos_ >= s_.size(); }

 private:
  const std::string& s_;
  std::size_t pos_ = 0;
};

constexpr DType kAllDTypes[] = {DType::Bool, DType::I8,  DType::U8,  DType::I16, DType::U16, DType::I32,
                                DType::U32,  DType::I64, DType::U64, DType::F32, DType::F64};

// Interesting bit patterns: 0, 1, -1, limits, NaN, inf, -0.0, denormals.
std::uint64_t edge_bits(Bytes& in) {
  static const std::uint64_t edges[] = {0,
                                        1,
                                        ~0ull,
                                        0x7f,
                                        0x80,
                                        0x7fffffff,
                                        0x80000000,
                                        0xffffffff,
                                        1ull << 63,
                                        (1ull << 63) - 1,
                                        0x7fc00000,
                                        0x7f800000,
                                        0xff800000,
                                        0x80000000,
                                        0x00000001,
                                        0x7ff8000000000000ull,
                                        0x7ff0000000000000ull,
                                        0x8000000000000000ull,
                                        64,
                                        63,
                                        32,
                                        0x7f7fffff};
  unsigned i = in.pick(sizeof(edges) / sizeof(edges[0]) + 1);
  return i < sizeof(edges) / sizeof(edges[0]) ? edges[i] : in.u64(8);
}

// A C++ literal of the dtype (a weak literal, as in user code).
Value literal(DType t, std::uint64_t b) {
  switch (t) {
    case DType::Bool: return Value((b & 1) != 0);
    case DType::I8: return Value(static_cast<std::int8_t>(b));
    case DType::U8: return Value(static_cast<std::uint8_t>(b));
    case DType::I16: return Value(static_cast<std::int16_t>(b));
    case DType::U16: return Value(static_cast<std::uint16_t>(b));
    case DType::I32: return Value(static_cast<std::int32_t>(b));
    case DType::U32: return Value(static_cast<std::uint32_t>(b));
    case DType::I64: return Value(static_cast<std::int64_t>(b));
    case DType::U64: return Value(b);
    case DType::F32: return Value(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
    case DType::F64: return Value(std::bit_cast<double>(b));
  }
  return Value(0);
}

// A SharedArray held by value (final: ArrayBase has no virtual destructor).
struct Shared final : SharedArray {
  explicit Shared(const SharedArray& a) : SharedArray(a) {}
};

// The kernel body: a little stack machine. Each statement byte chooses one
// front-end call; operands come from a pool of Values made so far.
class Body {
 public:
  Body(const std::string& bytes, std::vector<const ArrayBase*> arrays, std::vector<Value> scalars,
       const Texture3D* texture)
      : in_(bytes), arrays_(std::move(arrays)), texture_(texture) {
    for (auto& s : scalars) pool_.push_back(s);
  }

  void run() {
    pool_.push_back(Value(1));
    block(0);
  }

 private:
  static constexpr int kMaxDepth = 6;
  static constexpr int kMaxSteps = 400;

  Value operand() {
    if (pool_.empty() || in_.pick(8) == 0) return fresh();
    return pool_[in_.u8() % pool_.size()];
  }
  Value fresh() {
    switch (in_.pick(4)) {
      case 0: return literal(kAllDTypes[in_.pick(11)], edge_bits(in_));
      case 1: return cast(kAllDTypes[in_.pick(11)], literal(kAllDTypes[in_.pick(11)], edge_bits(in_)));
      case 2:
        if (!vars_.empty()) return vars_[in_.u8() % vars_.size()]->value();
        return Value(std::int64_t{0});
      default: return Value(static_cast<int>(in_.pick(5)) - 1);
    }
  }
  const ArrayBase* array() {
    if (arrays_.empty()) return nullptr;
    return arrays_[in_.u8() % arrays_.size()];
  }
  // An element: flat [i], or (i, j, ...) with 1 to 4 subscripts (maybe not the rank).
  ElementRef element(const ArrayBase& a) {
    switch (in_.pick(5)) {
      case 0: return a[operand()];
      case 1: return a(operand());
      case 2: return a(operand(), operand());
      case 3: return a(operand(), operand(), operand());
      default: return a(operand(), operand(), operand(), operand());
    }
  }

  Value unary(unsigned op, const Value& x) {
    switch (op) {
      case 0: return -x;
      case 1: return +x;
      case 2: return ~x;
      case 3: return !x;
      case 4: return abs(x);
      case 5: return floor(x);
      case 6: return ceil(x);
      case 7: return round(x);
      case 8: return trunc(x);
      case 9: return sqrt(x);
      case 10: return rsqrt(x);
      case 11: return exp(x);
      case 12: return exp2(x);
      case 13: return log(x);
      case 14: return log2(x);
      case 15: return log10(x);
      case 16: return sin(x);
      case 17: return cos(x);
      case 18: return tan(x);
      case 19: return asin(x);
      case 20: return acos(x);
      case 21: return atan(x);
      case 22: return sinh(x);
      case 23: return cosh(x);
      case 24: return tanh(x);
      case 25: return isnan(x);
      case 26: return isinf(x);
      default: return cast(kAllDTypes[in_.pick(11)], x);
    }
  }
  Value binary(unsigned op, const Value& a, const Value& b) {
    switch (op) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / b;
      case 4: return a % b;
      case 5: return a & b;
      case 6: return a | b;
      case 7: return a ^ b;
      case 8: return a << b;
      case 9: return a >> b;
      case 10: return a && b;
      case 11: return a || b;
      case 12: return a == b;
      case 13: return a != b;
      case 14: return a < b;
      case 15: return a <= b;
      case 16: return a > b;
      case 17: return a >= b;
      case 18: return min(a, b);
      case 19: return max(a, b);
      case 20: return atan2(a, b);
      case 21: return pow(a, b);
      case 22: return copysign(a, b);
      case 23: return floordiv(a, b);
      default: return floormod(a, b);
    }
  }
  Value atomic(unsigned op, const ArrayBase& a) {
    Value i = operand(), v = operand();
    switch (op) {
      case 0: return atomic_add(a, i, v);
      case 1: return atomic_sub(a, i, v);
      case 2: return atomic_min(a, i, v);
      case 3: return atomic_max(a, i, v);
      case 4: return atomic_and(a, i, v);
      case 5: return atomic_or(a, i, v);
      case 6: return atomic_xor(a, i, v);
      case 7: return atomic_exchange(a, i, v);
      default: return atomic_cas(a, i, operand(), v);
    }
  }
  void compound(unsigned op, Var& x, const Value& v) {
    switch (op) {
      case 0: x = v; break;
      case 1: x += v; break;
      case 2: x -= v; break;
      case 3: x *= v; break;
      case 4: x /= v; break;
      case 5: x %= v; break;
      case 6: x &= v; break;
      case 7: x |= v; break;
      case 8: x ^= v; break;
      case 9: x <<= v; break;
      default: x >>= v; break;
    }
  }
  void store(unsigned op, ElementRef& e, const Value& v) {
    switch (op) {
      case 0: e = v; break;
      case 1: e += v; break;
      case 2: e -= v; break;
      case 3: e *= v; break;
      default: e /= v; break;
    }
  }

  // A nested body. Its Values and Vars usually go out of scope at its end, as
  // in C++; sometimes they are kept, to check that using a value outside the
  // block that made it is refused rather than producing broken IR.
  void nested(int depth, const std::function<void()>& pre = {}) {
    std::size_t pool_size = pool_.size(), vars_size = vars_.size(), arrays_size = arrays_.size();
    if (pre) pre();
    block(depth + 1);
    if (in_.pick(8) != 0) {
      pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(pool_size), pool_.end());
      vars_.resize(vars_size);
      arrays_.resize(arrays_size);
    }
  }

  void block(int depth) {
    while (!in_.done() && steps_++ < kMaxSteps) {
      unsigned op = in_.pick(26);
      if (op == 0 && depth > 0) return;  // end of this block
      statement(op, depth);
    }
  }

  void statement(unsigned op, int depth) {
    switch (op) {
      case 0:
      case 1: pool_.push_back(fresh()); break;
      case 2: pool_.push_back(unary(in_.pick(28), operand())); break;
      case 3:
      case 4: pool_.push_back(binary(in_.pick(25), operand(), operand())); break;
      case 5: {
        Value a = operand(), b = operand(), c = operand();
        switch (in_.pick(3)) {
          case 0: pool_.push_back(select(a, b, c)); break;
          case 1: pool_.push_back(clamp(a, b, c)); break;
          default: pool_.push_back(fma(a, b, c)); break;
        }
        break;
      }
      case 6:
        if (const ArrayBase* a = array()) pool_.push_back(element(*a));
        break;
      case 7:
        if (const ArrayBase* a = array()) {
          ElementRef e = element(*a);
          store(in_.pick(5), e, operand());
        }
        break;
      case 8:
        if (const ArrayBase* a = array()) {
          if (auto* p = dynamic_cast<const LArray*>(a))
            pool_.push_back(in_.pick(2) ? p->size() : p->shape(static_cast<int>(in_.pick(7)) - 1));
          else if (auto* s = dynamic_cast<const SharedArray*>(a))
            pool_.push_back(s->size());
        }
        break;
      case 9: vars_.push_back(std::make_unique<Var>(operand())); break;
      case 10:
        if (!vars_.empty()) compound(in_.pick(11), *vars_[in_.u8() % vars_.size()], operand());
        break;
      case 11:
        if (const ArrayBase* a = array()) pool_.push_back(atomic(in_.pick(9), *a));
        break;
      case 12:
        if (depth < kMaxDepth) {
          Value c = operand();
          if (in_.pick(2))
            if_(c, [&] { nested(depth); });
          else
            if_(
                c, [&] { nested(depth); }, [&] { nested(depth); });
        }
        break;
      case 13:
        if (depth < kMaxDepth) {
          Value lo = operand(), hi = operand();
          for_range(lo, hi, [&](Index i) { nested(depth, [&] { pool_.push_back(i); }); });
        }
        break;
      case 14:
        if (depth < kMaxDepth) {
          // The condition is traced once per while_ (a function for the user's sake).
          Value c = operand();
          while_([c] { return c; }, [&] { nested(depth); });
        }
        break;
      case 15: break_(); break;
      case 16: continue_(); break;
      case 17:
        if (depth < kMaxDepth) parallel(depth);
        break;
      case 18:
        if (depth < kMaxDepth) {
          Value n = operand();
          workgroup_for(n, [&](Group g) { nested(depth, [&] { group_ = std::make_unique<Group>(g); }); });
        }
        break;
      case 19:
      case 20: group_op(); break;
      case 21:
        if (texture_) pool_.push_back(texture_->sample(operand(), operand(), operand()));
        break;
      case 22: {  // a Var copied from another (a new declaration)
        if (!vars_.empty()) vars_.push_back(std::make_unique<Var>(*vars_[in_.u8() % vars_.size()]));
        break;
      }
      case 23:
        if (!vars_.empty()) *vars_[in_.u8() % vars_.size()] = *vars_[in_.u8() % vars_.size()];
        break;
      case 24:
        if (const ArrayBase* a = array()) {  // element = element
          ElementRef dst = element(*a);
          if (const ArrayBase* b = array()) dst = element(*b);
        }
        break;
      default: pool_.push_back(operand().cast<float>()); break;
    }
  }

  // parallel_for with 1 to 4 indices over 0 to 5 dimensions (a mismatch is a user error).
  void parallel(int depth) {
    unsigned arity = 1 + in_.pick(4), dims = in_.pick(6);
    std::vector<Value> d;
    for (unsigned k = 0; k < dims; ++k) d.push_back(operand());
    auto in_body = [&](std::initializer_list<Value> idx) {
      nested(depth, [&] {
        for (const Value& v : idx) pool_.push_back(v);
      });
    };
    auto call = [&](auto&& f) {
      switch (dims) {
        case 0: parallel_for({}, f); break;
        case 1: parallel_for({d[0]}, f); break;
        case 2: parallel_for({d[0], d[1]}, f); break;
        case 3: parallel_for({d[0], d[1], d[2]}, f); break;
        case 4: parallel_for({d[0], d[1], d[2], d[3]}, f); break;
        default: parallel_for({d[0], d[1], d[2], d[3], d[4]}, f); break;
      }
    };
    switch (arity) {
      case 1:
        if (dims == 1 && in_.pick(2))
          parallel_for(d[0], [&](Index i) { in_body({i}); });
        else
          call([&](Index i) { in_body({i}); });
        break;
      case 2: call([&](Index i, Index j) { in_body({i, j}); }); break;
      case 3: call([&](Index i, Index j, Index k) { in_body({i, j, k}); }); break;
      default: call([&](Index i, Index j, Index k, Index l) { in_body({i, j, k, l}); }); break;
    }
  }

  // Group calls, possibly outside workgroup_for (a stale Group) or in divergent control flow.
  void group_op() {
    if (!group_) return;
    const Group& g = *group_;
    switch (in_.pick(10)) {
      case 0: pool_.push_back(g.local_id()); break;
      case 1: pool_.push_back(g.group_id()); break;
      case 2: pool_.push_back(g.size()); break;
      case 3: pool_.push_back(g.num_groups()); break;
      case 4: pool_.push_back(g.global_id()); break;
      case 5: {
        static const std::int64_t counts[] = {1, 0, -1, 256, 1 << 20, std::int64_t{1} << 40, 3};
        DType t = kAllDTypes[in_.pick(11)];
        shared_.emplace_back(g.shared(t, counts[in_.pick(7)]));
        arrays_.push_back(&shared_.back());
        break;
      }
      case 6: g.barrier(); break;
      case 7: pool_.push_back(g.reduce_add(operand())); break;
      case 8: pool_.push_back(g.reduce_min(operand())); break;
      default: pool_.push_back(g.reduce_max(operand())); break;
    }
  }

  Bytes in_;
  std::vector<const ArrayBase*> arrays_;
  const Texture3D* texture_;
  std::vector<Value> pool_;
  std::vector<std::unique_ptr<Var>> vars_;
  std::deque<Shared> shared_;  // a deque: pointers to its elements stay valid
  std::unique_ptr<Group> group_;
  int steps_ = 0;
};

// The call's arguments: array specs of any dtype and rank (0 and 5+ are
// mistakes), scalars of any dtype; their number and kinds may not match the kernel.
struct Args {
  std::vector<tack::KernelArg> list;
};

tack::KernelArg scalar_arg(DType t, std::uint64_t b) {
  switch (t) {
    case DType::Bool: return tack::KernelArg((b & 1) != 0);
    case DType::I8: return tack::KernelArg(static_cast<std::int8_t>(b));
    case DType::U8: return tack::KernelArg(static_cast<std::uint8_t>(b));
    case DType::I16: return tack::KernelArg(static_cast<std::int16_t>(b));
    case DType::U16: return tack::KernelArg(static_cast<std::uint16_t>(b));
    case DType::I32: return tack::KernelArg(static_cast<std::int32_t>(b));
    case DType::U32: return tack::KernelArg(static_cast<std::uint32_t>(b));
    case DType::I64: return tack::KernelArg(static_cast<std::int64_t>(b));
    case DType::U64: return tack::KernelArg(b);
    case DType::F32: return tack::KernelArg(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
    case DType::F64: return tack::KernelArg(std::bit_cast<double>(b));
  }
  return tack::KernelArg(0);
}

Args decode_args(Bytes& in, int params) {
  Args a;
  int count = params;
  if (in.pick(16) == 0) count = static_cast<int>(in.pick(8));  // wrong argument count (sometimes)
  for (int i = 0; i < count; ++i) {
    if (in.pick(4) != 0) {
      static const int ranks[] = {1, 1, 2, 3, 4, 0, 5, -1, 100};
      a.list.emplace_back(tack::ArraySpec{kAllDTypes[in.pick(11)], ranks[in.pick(9)]});
    } else {
      a.list.push_back(scalar_arg(kAllDTypes[in.pick(11)], edge_bits(in)));
    }
  }
  return a;
}

// One kernel of one of four signatures around the same body decoder.
tack::Kernel make_kernel(unsigned sig, std::shared_ptr<const std::string> body_bytes, int* params) {
  switch (sig) {
    case 0:
      *params = 5;
      return tack::kernel("fuzz", [body_bytes](LArray a, LArray b, LArray c, Scalar s, Scalar t) {
        Body(*body_bytes, {&a, &b, &c}, {s, t}, nullptr).run();
      });
    case 1:
      *params = 4;
      return tack::kernel("fuzz_fixed",
                          [body_bytes](ArrayOf<float> a, ArrayOf<std::int32_t> b, ScalarOf<double> s, Scalar t) {
                            Body(*body_bytes, {&a, &b}, {s, t}, nullptr).run();
                          });
    case 2:
      *params = 3;
      return tack::kernel("fuzz_texture", [body_bytes](LArray a, Texture3D tex, Scalar s) {
        Body(*body_bytes, {&a}, {s}, &tex).run();
      });
    default:
      *params = 0;
      return tack::kernel("fuzz_empty", [body_bytes]() { Body(*body_bytes, {}, {}, nullptr).run(); });
  }
}

// libFuzzer writes the input of a crash (crash-<sha1>) from its signal
// handlers. The opencl backend's first device query loads PoCL, whose own LLVM
// (libLLVM-15) installs LLVM's crash handlers over libFuzzer's
// (llvm::sys::RemoveFileOnSignal). LLVM's handler puts the previous handler
// back and returns; for SIGABRT, abort() then raises again with the default
// action, so libFuzzer never saw a failed TACK_CHECK (Tack's internal_error)
// or the std::abort() calls below, and no crash file was written. So libFuzzer's
// SIGABRT handler, as found at the first input, is put back before each input
// and after each backend. (A fault re-triggers once LLVM's handler returns and
// still reaches ASan's and libFuzzer's handlers; only SIGABRT needs this.)
void keep_fuzzer_abort_handler() {
  static struct sigaction fuzzer_handler;
  static bool saved = false;
  struct sigaction now {};
  if (::sigaction(SIGABRT, nullptr, &now) != 0) return;
  if (!saved) {
    fuzzer_handler = now;
    saved = true;
  } else if (now.sa_sigaction != fuzzer_handler.sa_sigaction || now.sa_flags != fuzzer_handler.sa_flags) {
    ::sigaction(SIGABRT, &fuzzer_handler, nullptr);
  }
}

const char* const kBackends[] = {"interp", "cpu", "cuda", "hip", "level_zero", "metal", "opencl"};

void run_one(const std::uint8_t* data, std::size_t size) {
  // Layout: [signature][debug][argument bytes...][0xff]?[body bytes...]: the
  // arguments are decoded from the front, the body from what follows the
  // first 0xff byte at position >= 2 (or the whole input when there is none).
  std::string all(reinterpret_cast<const char*>(data), size);
  std::size_t split = all.find('\xff', 2);
  auto body = std::make_shared<const std::string>(split == std::string::npos ? all : all.substr(split + 1));
  std::string head = all.substr(0, split);
  Bytes in(head);
  unsigned sig = in.pick(4);
  tack::set_debug(in.pick(4) == 0);  // debug mode adds the bounds-check pass
  int params = 0;
  tack::Kernel k = make_kernel(sig, body, &params);
  Args args = decode_args(in, params);
  for (const char* backend : kBackends) {
    try {
      tack::Inspection r = tack::inspect_args(k, backend, args.list);
      if (r.source.empty()) {
        std::fprintf(stderr, "tack_libfuzzer: %s produced no source\n", backend);
        std::abort();
      }
    } catch (const tack::Error&) {
      // A user mistake, reported as Tack promises.
    }
    keep_fuzzer_abort_handler();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Every pass's output is verified; a broken invariant aborts (a bug in Tack).
  ::setenv("TACK_VERIFY", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  keep_fuzzer_abort_handler();
  try {
    run_one(data, size);
  } catch (const std::exception& e) {
    // Not a tack::Error: Tack let another exception escape (a bug).
    std::fprintf(stderr, "tack_libfuzzer: exception that is not a tack::Error: %s\n", e.what());
    std::abort();
  }
  tack::set_debug(false);
  return 0;
}
