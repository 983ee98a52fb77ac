// Element access to kernel arrays and shared arrays, with the interpreter's bounds check.
#pragma once

#include "interp/context.hpp"

#include <cstdint>

namespace tack::interp {

// The memory behind an ArrayRef: raw elements of one dtype.
struct ArrayView {
  void* data = nullptr;
  DType dtype = DType::F32;
  std::int64_t size = 0;
};

ArrayView array_view(Context& ctx, ir::ArrayRef a);

// Throws tack::IndexError (naming the kernel, the array, the index, the extent and ctx.loc) unless 0 <= i < size.
void check_index(const Context& ctx, ir::ArrayRef a, const ArrayView& v, std::int64_t i);

// Lane `lane`'s element i of a local array (a.space is Local); i must be in range.
ir::Bits& local_element(Context& ctx, ir::ArrayRef a, std::int64_t i, int lane);

ir::Bits load_element(const ArrayView& v, std::int64_t i);           // canonical Bits of v.dtype
void store_element(const ArrayView& v, std::int64_t i, ir::Bits b);  // b in v.dtype's canonical form

}  // namespace tack::interp
