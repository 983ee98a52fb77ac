// Tack's one reach into the public classes' internals: the runtime objects
// behind a Device, Array, Texture and Kernel, and the untyped halves of the host
// API's templates (to_host<T>, fill<T>, sum<T>, from_host<T>, to_host_async<T>)
// for bindings to other languages, which hold a dtype at run time rather than a
// C++ type. The public headers declare it a friend; users never see it.
#pragma once

#include "runtime/reductions/host_reduce.hpp"

#include <tack/array.hpp>
#include <tack/device.hpp>
#include <tack/kernel.hpp>
#include <tack/texture.hpp>

#include <exception>
#include <functional>

namespace tack::detail {

struct Access {
  static const std::shared_ptr<runtime::Backend>& backend(const Device& d) { return d.backend_; }
  static const std::shared_ptr<runtime::ArrayStorage>& storage(const Array& a) { return a.storage_; }
  static const std::shared_ptr<runtime::TextureStorage>& storage(const Texture& t) { return t.storage_; }
  static const std::shared_ptr<runtime::KernelImpl>& impl(const Kernel& k) { return k.impl_; }
  // A kernel's struct parameters' leaf counts (null without struct parameters).
  static const std::shared_ptr<const std::vector<int>>& groups(const Kernel& k) { return k.groups_; }

  // Copies `count` elements of dtype `dtype` from `data` into a new array of `shape`.
  static Array from_host(const Device& d, DType dtype, const void* data, std::size_t count,
                         std::vector<std::int64_t> shape) {
    return d.from_host_bytes(dtype, data, count, std::move(shape));
  }
  // Reads elements [start, start + count) as `as` (the array's dtype) into out; waits.
  static void read(const Array& a, DType as, std::int64_t start, std::int64_t count, void* out) {
    a.read_bytes(as, start, count, out);
  }
  // `value` points at one element of dtype `from`, converted as cast() does.
  static void fill(Array& a, DType from, const void* value) { a.fill_bits(from, value); }
  // The result is written to `out` as dtype `as` (see Array::sum for the rules).
  static void reduce(const Array& a, ReduceOp op, DType as, void* out) { a.reduce(op, as, out); }
  // then(error or nullptr) once the launches queued on the array's device so far have run.
  static void after_queued(const Array& a, std::function<void(std::exception_ptr)> then) {
    a.after_queued(a.dtype(), std::move(then));
  }
};

}  // namespace tack::detail
