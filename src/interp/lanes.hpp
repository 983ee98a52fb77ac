// Lane storage for the lock-step interpreter: a batch of up to kMaxLanes work-items and their active mask.
#pragma once

#include "interp/interpreter.hpp"
#include "ir/scalar_ops.hpp"
#include "support/no_copy.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

namespace tack::interp {

// The set of active lanes of a batch.
class Mask {
 public:
  static Mask first(int n) {
    Mask m;
    for (int k = 0; k < kWords; ++k) {
      int bits = n - 64 * k;
      m.w_[k] = bits >= 64 ? ~std::uint64_t{0} : bits <= 0 ? 0 : (std::uint64_t{1} << bits) - 1;
    }
    return m;
  }
  bool test(int lane) const { return (w_[lane >> 6] >> (lane & 63)) & 1; }
  void set(int lane) { w_[lane >> 6] |= std::uint64_t{1} << (lane & 63); }
  bool any() const { return (w_[0] | w_[1] | w_[2] | w_[3]) != 0; }
  bool none() const { return !any(); }
  int count() const {
    int n = 0;
    for (std::uint64_t x : w_) n += std::popcount(x);
    return n;
  }
  Mask operator&(const Mask& o) const {
    return combine(o, [](std::uint64_t a, std::uint64_t b) { return a & b; });
  }
  Mask operator|(const Mask& o) const {
    return combine(o, [](std::uint64_t a, std::uint64_t b) { return a | b; });
  }
  Mask without(const Mask& o) const {
    return combine(o, [](std::uint64_t a, std::uint64_t b) { return a & ~b; });
  }
  bool operator==(const Mask&) const = default;

  // Calls f(lane) for every active lane, in increasing lane order.
  template <class F>
  void for_each(F&& f) const {
    for (int k = 0; k < kWords; ++k) {
      for (std::uint64_t x = w_[k]; x; x &= x - 1) f(64 * k + std::countr_zero(x));
    }
  }

 private:
  static constexpr int kWords = kMaxLanes / 64;
  template <class F>
  Mask combine(const Mask& o, F f) const {
    Mask m;
    for (int k = 0; k < kWords; ++k) m.w_[k] = f(w_[k], o.w_[k]);
    return m;
  }
  std::array<std::uint64_t, kWords> w_{};
};

// A stack of lane buffers for intermediate values, reused across statements.
class Scratch {
 public:
  ir::Bits* push() {
    if (top_ == buffers_.size()) buffers_.push_back(std::make_unique<ir::Bits[]>(kMaxLanes));
    return buffers_[top_++].get();
  }
  void pop() { --top_; }

 private:
  std::vector<std::unique_ptr<ir::Bits[]>> buffers_;
  std::size_t top_ = 0;
};

// One lane buffer from a Scratch, held for the lifetime of this object.
class LaneBuffer : support::NoCopy {
 public:
  explicit LaneBuffer(Scratch& s) : scratch_(s), data_(s.push()) {}
  ~LaneBuffer() { scratch_.pop(); }
  ir::Bits* get() const { return data_; }
  ir::Bits& operator[](int lane) const { return data_[lane]; }

 private:
  Scratch& scratch_;
  ir::Bits* data_;
};

}  // namespace tack::interp
