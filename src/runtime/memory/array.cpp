// tack::Device's array constructors and tack::Array's host-side methods.
#include "ir/dtype_dispatch.hpp"
#include "ir/scalar_ops.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/reductions/host_reduce.hpp"
#include "runtime/kernels/print_capture.hpp"

#include <tack/array.hpp>
#include <tack/error.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tack {
namespace {
using runtime::check_dtype;
using runtime::checked_count;
using runtime::shape_text;

Array make_array(const Device& dev, DType dtype, std::vector<std::int64_t> shape, bool zeroed, const char* what) {
  if (!detail::Access::backend(dev)) throw InvalidArgument(std::string(what) + " on an empty tack::Device");
  check_dtype(dev, dtype, what);
  std::int64_t count = checked_count(shape, dtype, what);
  auto s = std::make_shared<runtime::ArrayStorage>();
  s->backend = detail::Access::backend(dev);
  s->dtype = dtype;
  s->shape = std::move(shape);
  s->size = count;
  s->buffer = detail::Access::backend(dev)->allocate(static_cast<std::size_t>(count) * dtype_size(dtype), zeroed);
  return Array(s);
}

ir::Bits host_bits(DType t, const void* p) {
  return ir::with_dtype(t, [&](auto v) -> ir::Bits {
    using T = decltype(v);
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::is_same_v<T, float>)
      return std::bit_cast<std::uint32_t>(v);
    else if constexpr (std::is_same_v<T, double>)
      return std::bit_cast<std::uint64_t>(v);
    else if constexpr (std::is_signed_v<T>)
      return static_cast<ir::Bits>(static_cast<std::int64_t>(v));
    else
      return static_cast<ir::Bits>(v);
  });
}

void store_bits(DType t, ir::Bits b, void* out) {
  ir::with_dtype(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, float>)
      v = std::bit_cast<float>(static_cast<std::uint32_t>(b));
    else if constexpr (std::is_same_v<T, double>)
      v = std::bit_cast<double>(b);
    else
      v = static_cast<T>(b);
    std::memcpy(out, &v, sizeof v);
  });
}

}  // namespace

Device::Device(std::shared_ptr<runtime::Backend> backend) : backend_(std::move(backend)) {}

const std::string& Device::name() const {
  if (!backend_) throw InvalidArgument("name() of an empty tack::Device");
  return backend_->caps().name;
}
const Capabilities& Device::capabilities() const {
  if (!backend_) throw InvalidArgument("capabilities() of an empty tack::Device");
  return backend_->caps();
}
void Device::synchronize() const {
  runtime::flush_prints();
  if (backend_) backend_->synchronize();
}

Array Device::from_host_bytes(DType dtype, const void* data, std::size_t count, std::vector<std::int64_t> shape) const {
  if (shape.empty()) shape = {static_cast<std::int64_t>(count)};
  std::int64_t n = checked_count(shape, dtype, "from_host");
  if (n != static_cast<std::int64_t>(count))
    throw InvalidArgument("from_host: the host buffer holds " + std::to_string(count) + " elements but shape " +
                          shape_text(shape) + " needs " + std::to_string(n));
  Array a = make_array(*this, dtype, std::move(shape), false, "from_host");
  if (count) detail::Access::storage(a)->buffer->write(0, data, count * dtype_size(dtype));
  return a;
}

Array Device::zeros(DType dtype, std::vector<std::int64_t> shape) const {
  return make_array(*this, dtype, std::move(shape), true, "zeros");
}
Array Device::empty(DType dtype, std::vector<std::int64_t> shape) const {
  return make_array(*this, dtype, std::move(shape), false, "empty");
}

Array::Array(std::shared_ptr<runtime::ArrayStorage> storage) : storage_(std::move(storage)) {}

DType Array::dtype() const { return runtime::storage_of(storage_, "dtype()").dtype; }
const std::vector<std::int64_t>& Array::shape() const { return runtime::storage_of(storage_, "shape()").shape; }
int Array::rank() const { return static_cast<int>(runtime::storage_of(storage_, "rank()").shape.size()); }
std::int64_t Array::size() const { return runtime::storage_of(storage_, "size()").size; }
Device Array::device() const { return Device(runtime::storage_of(storage_, "device()").backend); }

void Array::read_bytes(DType as, std::int64_t start, std::int64_t count, void* out) const {
  const auto& s = runtime::storage_of(storage_, "reading");
  runtime::check_read_dtype(s.dtype, as);
  if (start < 0 || count < 0 || start > s.size || count > s.size - start)
    throw IndexError("read_range(" + std::to_string(start) + ", " + std::to_string(count) +
                     ") is outside an array of " + std::to_string(s.size) + " elements");
  runtime::flush_prints();
  if (count)
    s.buffer->read(static_cast<std::size_t>(start) * dtype_size(as), out,
                   static_cast<std::size_t>(count) * dtype_size(as));
}

void Array::fill_bits(DType from, const void* value) {
  const auto& s = runtime::storage_of(storage_, "fill()");
  ir::Bits b = from == DType::Bool ? (*static_cast<const bool*>(value) ? 1 : 0) : host_bits(from, value);
  ir::Bits converted = ir::eval_cast(from, s.dtype, b);
  unsigned char element[8];
  store_bits(s.dtype, converted, element);
  s.buffer->fill(element, dtype_size(s.dtype), static_cast<std::size_t>(s.size));
  // The other side of a shared array may read it with no Tack call in between.
  if (s.buffer->shared()) s.backend->synchronize();
}

void Array::reduce(detail::ReduceOp rop, DType as, void* out) const {
  const char* what = rop == detail::ReduceOp::Sum ? "sum()" : rop == detail::ReduceOp::Min ? "min()" : "max()";
  const auto& s = runtime::storage_of(storage_, what);
  if (rop != detail::ReduceOp::Sum && s.size == 0) throw InvalidArgument(std::string(what) + " of an empty array");
  runtime::flush_prints();
  DType acc_t = DType::F64;
  ir::Bits acc;
  double device_result = 0;
  if (s.dtype == DType::F32 && s.backend->caps().supports_device_reductions &&
      s.backend->reduce_device(s, rop, &device_result)) {
    acc = std::bit_cast<std::uint64_t>(device_result);
  } else if (const void* data = s.buffer->host_data()) {
    acc = runtime::host_reduce(*s.backend, s.dtype, data, s.size, rop, &acc_t);
  } else {
    std::vector<unsigned char> host(static_cast<std::size_t>(s.size) * dtype_size(s.dtype));
    if (s.size) s.buffer->read(0, host.data(), host.size());
    acc = runtime::host_reduce(*s.backend, s.dtype, host.data(), s.size, rop, &acc_t);
  }
  ir::Bits result = ir::eval_cast(acc_t, as, acc);
  if (as == DType::Bool)
    *static_cast<bool*>(out) = result != 0;
  else
    store_bits(as, result, out);
}

}  // namespace tack
