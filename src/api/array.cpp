// The bodies of <tack/array.hpp>: tack::Array's host-side methods (reads,
// fills, reductions, sharing its memory, DLPack) and the arrays over memory
// from outside Tack (array_from_ptr, from_dlpack). Memory handed out or taken
// in is marked shared, and a launch that binds a shared buffer completes
// before returning (reference: "Memory outside Tack").
#include "ir/dtype_dispatch.hpp"
#include "ir/scalar_ops.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/kernels/print_capture.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/memory/dlpack.hpp"
#include "runtime/memory/host_fill.hpp"
#include "runtime/memory/new_array.hpp"
#include "runtime/reductions/host_reduce.hpp"
#include "runtime/waits/async_wait.hpp"

#include <tack/array.hpp>
#include <tack/error.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tack {
namespace {

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
  if (void* host = s.buffer->host_data())  // cpu and interp: over the host workers (the CPU's pool)
    runtime::fill_host(*s.backend, host, element, dtype_size(s.dtype), static_cast<std::size_t>(s.size));
  else
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

NativeMemory Array::share() const {
  runtime::ArrayStorage& s = runtime::storage_of(storage_, "share()");
  // Marked before the wait, so a launch another thread makes meanwhile completes too.
  s.buffer->mark_shared();
  runtime::flush_prints();
  s.backend->synchronize();
  return s.buffer->native();
}

bool Array::shared() const { return runtime::storage_of(storage_, "shared()").buffer->shared(); }

ExportedMemory Array::export_memory() const {
  runtime::ArrayStorage& s = runtime::storage_of(storage_, "export_memory()");
  if (!s.backend->caps().supports_exportable_memory)
    throw InvalidArgument("export_memory(): the " + s.backend->caps().name +
                          " device has no exportable memory (supports_exportable_memory is false); use share() for "
                          "its native handle");
  return s.backend->export_memory(s);
}

void Array::after_queued(DType as, std::function<void(std::exception_ptr)> then) const {
  // The argument errors to_host() would raise are raised now, not through the future.
  runtime::check_read_dtype(dtype(), as);  // the same TypeError as to_host(); dtype() throws for an empty handle
  runtime::after_mark(runtime::take_mark({storage_->backend}), std::move(then));
}

DLManagedTensor* Array::to_dlpack() const { return runtime::to_dlpack(*this); }

Array array_from_ptr(const Device& device, std::uintptr_t address, DType dtype, std::vector<std::int64_t> shape,
                     std::shared_ptr<void> keep_alive) {
  if (!detail::Access::backend(device)) throw InvalidArgument("array_from_ptr on an empty tack::Device");
  if (!device.capabilities().supports_wrapped_memory)
    throw InvalidArgument("array_from_ptr: the " + device.name() +
                          " device cannot wrap memory from outside Tack (supports_wrapped_memory is false)");
  runtime::check_dtype(device, dtype, "array_from_ptr");
  const std::int64_t count = runtime::checked_count(shape, dtype, "array_from_ptr");
  if (address == 0) throw InvalidArgument("array_from_ptr: the address is null");
  if (address % dtype_size(dtype) != 0)
    throw InvalidArgument("array_from_ptr: address " + runtime::address_text(address) + " is not aligned to the " +
                          std::to_string(dtype_size(dtype)) + " bytes of a " + std::string(dtype_name(dtype)) +
                          " element");
  const std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(dtype);
  if (address + bytes < address)
    throw InvalidArgument("array_from_ptr: " + std::to_string(bytes) + " bytes from " + runtime::address_text(address) +
                          " wrap around the address space");
  const std::shared_ptr<runtime::Backend>& backend = detail::Access::backend(device);
  return runtime::new_array(backend, dtype, std::move(shape), count,
                            backend->wrap_memory(address, bytes, std::move(keep_alive)));
}

Array from_dlpack(DLManagedTensor* tensor, const Device& device) { return runtime::from_dlpack(tensor, device); }

}  // namespace tack
