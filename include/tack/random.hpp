// Random numbers in kernels: Philox4x32-10 (Random123, Salmon et al., SC'11), a
// counter-based generator with no state in memory, so a stream is the same bits
// on every backend. Everything lowers to 32- and 64-bit integer IR while tracing.
#pragma once

#include <tack/lang.hpp>

#include <array>
#include <cstdint>
#include <source_location>

namespace tack::lang {

// The Philox4x32-10 block function: the four u32 words for counter (c0, c1, c2, c3)
// and key (k0, k1). Each argument is converted to u32 first (as cast<u32>).
std::array<Value, 4> philox4x32(const Value& c0, const Value& c1, const Value& c2, const Value& c3, const Value& k0,
                                const Value& k1, std::source_location loc = std::source_location::current());

// A stream of random numbers for one work-item. key = (low, high 32 bits of the
// u64 seed); block k is philox4x32(low(k), high(k), low(stream), high(stream), key);
// the words of block 0, then block 1, ... are used in order (docs/language.md,
// "Random numbers", has the exact definition of each draw).
//
// Its position lives in kernel Vars, so draws may be made anywhere (inside if_,
// for_range and while_ bodies, a number of times known only at run time). While
// every draw is made in the block that constructed it, the position is known while
// tracing and the draws are straight-line code (the Vars are then dead and dropped).
// It is neither copied nor moved: pass it to helpers by reference.
class Random {
 public:
  Random(const Value& seed, const Value& stream, std::source_location loc = std::source_location::current());
  Random(const Random&) = delete;
  Random(Random&&) = delete;
  Random& operator=(const Random&) = delete;

  // The next word, u32.
  Value next_u32(std::source_location loc = std::source_location::current());
  // f32: (w >> 8) * 2^-24, in [0, 1). f64: ((a >> 5) * 2^26 + (b >> 6)) * 2^-53 from
  // the next two words a, b, in [0, 1). Exact, so the same bits on every backend.
  Value uniform(DType dtype = DType::F32, std::source_location loc = std::source_location::current());
  // A standard normal by Box-Muller, f32 or f64: u1 in (0, 1], u2 in [0, 1) (see
  // docs/language.md), sqrt(-2 log u1) * cos(2 pi u2). Uses 2 words (f32) or 4 (f64).
  Value normal(DType dtype = DType::F32, std::source_location loc = std::source_location::current());
  // An i64 in [lo, hi) from one word w: lo + ((w * (hi - lo)) >> 32) (Lemire's
  // multiply-shift, no rejection). hi - lo must be at most 2^32; hi <= lo gives lo.
  // Each value comes with probability floor or ceil(2^32 / n) / 2^32, n = hi - lo.
  Value integers(const Value& lo, const Value& hi, std::source_location loc = std::source_location::current());

 private:
  struct Start;
  static Start start(const Value& seed, const Value& stream, std::source_location loc);
  Random(const Start& start, std::source_location loc);
  std::array<Value, 4> block(const Value& lo, const Value& hi, std::source_location loc) const;
  Value next_static(std::source_location loc);
  Value next_dynamic(std::source_location loc);

  std::array<Value, 2> key_, stream_;
  // What the trace knows of the position while it is static: the block, its words,
  // the next word's index (4: the block is used up) and the block the Random was made in.
  std::uint64_t block_ = 0;
  std::array<Value, 4> words_;
  int pos_ = 0;
  int scope_ = -1;
  bool dynamic_ = false;
  // The same position as kernel Vars, kept up to date by every draw.
  Var block_var_, pos_var_, w0_, w1_, w2_, w3_;
};

}  // namespace tack::lang
