// A GPU launch's kernel parameters: one 8-byte value per buffer argument (an
// address, a cl_mem, a texture object), then the count __n__, and an array of
// pointers to those values as cuLaunchKernel and hipModuleLaunchKernel take
// them; the drivers that set arguments one at a time (Level Zero, OpenCL) read
// the same pointers. Held on the stack up to a capacity no kernel reaches (its
// parameters plus their scalar packs), so a warm launch allocates nothing.
#pragma once

#include "runtime/kernels/signature.hpp"
#include "support/no_copy.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tack::runtime {

class GpuLaunchParams : support::NoCopy {
 public:
  static constexpr std::size_t kInline = 2 * kMaxKernelParams + 1;

  explicit GpuLaunchParams(std::size_t count) : count_(count) {
    if (count > kInline) {  // beyond any kernel today: correct, not allocation-free
      spill_values_.resize(count);
      spill_pointers_.resize(count);
    }
    std::uint64_t* v = values();
    void** p = pointers();
    for (std::size_t i = 0; i < count; ++i) p[i] = &v[i];
  }

  std::uint64_t& operator[](std::size_t i) { return values()[i]; }
  std::uint64_t& back() { return values()[count_ - 1]; }
  std::size_t size() const { return count_; }
  void** pointers() { return count_ > kInline ? spill_pointers_.data() : inline_pointers_.data(); }

 private:
  std::uint64_t* values() { return count_ > kInline ? spill_values_.data() : inline_values_.data(); }

  std::size_t count_;
  std::array<std::uint64_t, kInline> inline_values_;
  std::array<void*, kInline> inline_pointers_;
  std::vector<std::uint64_t> spill_values_;
  std::vector<void*> spill_pointers_;
};

}  // namespace tack::runtime
