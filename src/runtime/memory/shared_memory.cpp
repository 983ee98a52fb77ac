// Memory outside Tack (reference: "Launches are queued", Memory outside Tack):
// Array::share() and export_memory() hand an array's memory out, array_from_ptr
// takes memory in, Device::empty_exportable allocates memory made for export.
// Each marks the buffer shared, and launch.cpp completes every launch that binds
// a shared buffer before returning.
#include "runtime/memory/access.hpp"
#include "runtime/memory/array_checks.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/kernels/print_capture.hpp"

#include <tack/array.hpp>
#include <tack/error.hpp>

namespace tack {
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

Array Device::empty_exportable(DType dtype, std::vector<std::int64_t> shape) const {
  if (!backend_) throw InvalidArgument("empty_exportable on an empty tack::Device");
  if (!capabilities().supports_exportable_memory)
    throw InvalidArgument("empty_exportable: the " + name() +
                          " device has no exportable memory (supports_exportable_memory is false)");
  runtime::check_dtype(*this, dtype, "empty_exportable");
  const std::int64_t count = runtime::checked_count(shape, dtype, "empty_exportable");
  auto s = std::make_shared<runtime::ArrayStorage>();
  s->backend = backend_;
  s->dtype = dtype;
  s->shape = std::move(shape);
  s->size = count;
  s->buffer = backend_->allocate_exportable(static_cast<std::size_t>(count) * dtype_size(dtype));
  return Array(s);
}

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
  auto s = std::make_shared<runtime::ArrayStorage>();
  s->backend = detail::Access::backend(device);
  s->dtype = dtype;
  s->shape = std::move(shape);
  s->size = count;
  s->buffer = detail::Access::backend(device)->wrap_memory(address, bytes, std::move(keep_alive));
  return Array(s);
}

}  // namespace tack
