// Philox4x32-10 and the Random stream over it, lowered to integer IR while tracing:
// a 32x32 -> 64-bit product gives each round's high and low halves, which C
// compilers and LLVM turn into one widening multiply (or a vector pmuludq).
#include "ir/ir.hpp"
#include "lang/trace_context.hpp"

#include <tack/random.hpp>

namespace tack::lang {
namespace {

constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;  // Random123's PHILOX_M4x32_0, _1
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;  // PHILOX_W32_0, _1: the key's step per round
constexpr int kRounds = 10;

Value as_u32(const Value& v) { return cast<std::uint32_t>(v); }
Value as_u64(const Value& v) { return cast<std::uint64_t>(v); }

}  // namespace

std::array<Value, 4> philox4x32(const Value& c0, const Value& c1, const Value& c2, const Value& c3, const Value& k0,
                                const Value& k1, std::source_location l) {
  auto& ctx = detail::TraceContext::current("philox4x32");
  auto loc = detail::to_loc(l);
  ctx.require_body("philox4x32", loc);
  // Each round's products and words are Lets: the IR stays linear in the rounds.
  auto let = [&](const Value& v) { return ctx.bind(ir::Expr(v.expr()), loc); };
  std::array<Value, 4> c = {let(as_u32(c0)), let(as_u32(c1)), let(as_u32(c2)), let(as_u32(c3))};
  Value key0 = let(as_u32(k0)), key1 = let(as_u32(k1));
  for (int r = 0; r < kRounds; ++r) {
    // The key of round r is the original plus r Weyl steps (mod 2^32).
    Value rk0 = r == 0 ? key0 : key0 + Value(static_cast<std::uint32_t>(kWeyl0 * static_cast<std::uint32_t>(r)));
    Value rk1 = r == 0 ? key1 : key1 + Value(static_cast<std::uint32_t>(kWeyl1 * static_cast<std::uint32_t>(r)));
    Value p0 = let(as_u64(c[0]) * Value(std::uint64_t{kMul0}));
    Value p1 = let(as_u64(c[2]) * Value(std::uint64_t{kMul1}));
    std::array<Value, 4> next = {let(as_u32(p1 >> 32u) ^ c[1] ^ rk0), let(as_u32(p1)), let(as_u32(p0 >> 32u) ^ c[3] ^ rk1),
                                 let(as_u32(p0))};
    c = next;
  }
  return c;
}

struct Random::Start {
  std::array<Value, 2> key, stream;
  std::array<Value, 4> words;
};

// The key, the stream's halves and block 0, computed where the Random is made.
Random::Start Random::start(const Value& seed, const Value& stream, std::source_location loc) {
  auto& ctx = detail::TraceContext::current("Random");
  auto at = detail::to_loc(loc);
  ctx.require_body("Random", at);
  auto let = [&](const Value& v) { return ctx.bind(ir::Expr(v.expr()), at); };
  Value s = as_u64(seed), t = as_u64(stream);
  Start st{{let(as_u32(s)), let(as_u32(s >> 32u))}, {let(as_u32(t)), let(as_u32(t >> 32u))}, {0u, 0u, 0u, 0u}};
  st.words = philox4x32(0u, 0u, st.stream[0], st.stream[1], st.key[0], st.key[1], loc);
  return st;
}

Random::Random(const Value& seed, const Value& stream, std::source_location loc)
    : Random(start(seed, stream, loc), loc) {}

Random::Random(const Start& s, std::source_location loc)
    : key_(s.key),
      stream_(s.stream),
      words_(s.words),
      block_var_(cast<std::uint64_t>(0), loc),
      pos_var_(cast<std::uint32_t>(0), loc),
      w0_(s.words[0], loc),
      w1_(s.words[1], loc),
      w2_(s.words[2], loc),
      w3_(s.words[3], loc) {
  scope_ = detail::TraceContext::current("Random").block_id();
}

std::array<Value, 4> Random::block(const Value& lo, const Value& hi, std::source_location loc) const {
  return philox4x32(lo, hi, stream_[0], stream_[1], key_[0], key_[1], loc);
}

// The position is known while tracing: the word is a Value already computed. The
// Vars follow, for a draw that may come later inside traced control flow.
Value Random::next_static(std::source_location loc) {
  if (pos_ == 4) {
    ++block_;
    words_ = block(Value(static_cast<std::uint32_t>(block_)), Value(static_cast<std::uint32_t>(block_ >> 32)), loc);
    block_var_ = cast<std::uint64_t>(Value(block_));
    w0_ = words_[0];
    w1_ = words_[1];
    w2_ = words_[2];
    w3_ = words_[3];
    pos_ = 0;
  }
  Value w = words_[pos_++];
  pos_var_ = cast<std::uint32_t>(Value(pos_));
  return w;
}

// The position is only known at run time: the next block is made when the words are
// used up, and the word is picked by the position.
Value Random::next_dynamic(std::source_location loc) {
  if_(
      pos_var_ >= 4u,
      [&] {
        Value b = block_var_ + 1u;
        block_var_ = b;
        auto w = block(as_u32(b), as_u32(b >> 32u), loc);
        w0_ = w[0];
        w1_ = w[1];
        w2_ = w[2];
        w3_ = w[3];
        pos_var_ = 0u;
      },
      loc);
  Value p = pos_var_;
  Value w = select(p == 0u, w0_, select(p == 1u, w1_, select(p == 2u, w2_, w3_)));
  pos_var_ = p + 1u;
  return w;
}

Value Random::next_u32(std::source_location loc) {
  auto& ctx = detail::TraceContext::current("Random::next_u32");
  auto at = detail::to_loc(loc);
  ctx.require_body("Random::next_u32", at);
  // A draw in another block than the one that made this Random (a traced body) may run
  // any number of times: from then on the position is the Vars'.
  if (ctx.block_id() != scope_) dynamic_ = true;
  return dynamic_ ? next_dynamic(loc) : next_static(loc);
}

namespace {
void require_float(DType dtype, const char* what, std::source_location loc) {
  if (dtype == DType::F32 || dtype == DType::F64) return;
  auto& ctx = detail::TraceContext::current("Random");
  ctx.fail(detail::to_loc(loc), std::string("Random's ") + what + " makes float32 or float64 values, not " +
                                    std::string(dtype_name(dtype)));
}
constexpr double kTwoPi = 6.283185307179586476925286766559;
}  // namespace

Value Random::uniform(DType dtype, std::source_location loc) {
  require_float(dtype, "uniform()", loc);
  if (dtype == DType::F32) return cast<float>(next_u32(loc) >> 8u) * Value(0x1p-24f);
  Value a = next_u32(loc);
  Value b = next_u32(loc);
  return cast<double>((as_u64(a >> 5u) << 26u) | as_u64(b >> 6u)) * Value(0x1p-53);
}

Value Random::normal(DType dtype, std::source_location loc) {
  require_float(dtype, "normal()", loc);
  if (dtype == DType::F32) {
    // u1 = ((a >> 8) + 1) * 2^-24 is in (0, 1]: log(u1) is finite.
    Value a = next_u32(loc);
    Value u1 = cast<float>((a >> 8u) + 1u) * Value(0x1p-24f);
    Value u2 = uniform(DType::F32, loc);
    return sqrt(Value(-2.0f) * log(u1)) * cos(Value(static_cast<float>(kTwoPi)) * u2);
  }
  Value a = next_u32(loc);
  Value b = next_u32(loc);
  Value u1 = cast<double>(((as_u64(a >> 5u) << 26u) | as_u64(b >> 6u)) + 1u) * Value(0x1p-53);
  Value u2 = uniform(DType::F64, loc);
  return sqrt(Value(-2.0) * log(u1)) * cos(Value(kTwoPi) * u2);
}

Value Random::integers(const Value& lo, const Value& hi, std::source_location loc) {
  Value w = next_u32(loc);
  Value l = cast<std::int64_t>(lo), h = cast<std::int64_t>(hi);
  Value offset = (as_u64(w) * as_u64(h - l)) >> 32u;
  return select(h > l, l + cast<std::int64_t>(offset), l);
}

}  // namespace tack::lang
