// Device buffers of the cuda backend: stream-ordered, exportable or wrapped.
#include "backends/cuda/cuda_memory.hpp"

#include "backends/cuda/cuda_driver.hpp"
#include "ir/check.hpp"
#include "runtime/memory/access.hpp"

#include <tack/error.hpp>

#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace cu = cuda::driver;

DeviceBuffer::DeviceBuffer(std::shared_ptr<Context> context, std::size_t bytes, Origin origin)
    : Buffer(bytes), context_(std::move(context)), origin_(origin), outside_(origin == Origin::Outside) {}

DeviceBuffer::DeviceBuffer(std::shared_ptr<Context> context, std::size_t bytes)
    : DeviceBuffer(std::move(context), bytes, Origin::Pool) {
  ptr_.store(context_->allocate(bytes), std::memory_order_release);
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::exportable(std::shared_ptr<Context> context, std::size_t bytes) {
  std::shared_ptr<DeviceBuffer> b(new DeviceBuffer(context, bytes, Origin::Virtual));
  b->virtual_ = std::make_unique<VirtualAllocation>(std::move(context), bytes);
  b->ptr_.store(b->virtual_->pointer(), std::memory_order_release);
  return b;
}

std::unique_ptr<DeviceBuffer> DeviceBuffer::pinned(std::shared_ptr<Context> context, std::size_t bytes) {
  std::unique_ptr<DeviceBuffer> b(new DeviceBuffer(context, bytes, Origin::Pinned));
  Context::Scope scope(*context);
  cu::CUresult r = cu::api().cuMemHostAlloc(&b->host_, bytes ? bytes : 4, cu::kMemHostAllocDeviceMap);
  if (r == cu::CUDA_ERROR_OUT_OF_MEMORY)
    throw BackendError("cuda: out of page-locked host memory allocating " + std::to_string(bytes) +
                       " bytes (cuMemHostAlloc, memory space 'cuda_pinned')");
  cu::check(r, "cuMemHostAlloc");
  cu::CUdeviceptr device = 0;
  r = cu::api().cuMemHostGetDevicePointer_v2(&device, b->host_, 0);
  if (r != cu::CUDA_SUCCESS) {
    cu::api().cuMemFreeHost(b->host_);
    b->host_ = nullptr;
    cu::check(r, "cuMemHostGetDevicePointer");
  }
  b->ptr_.store(device, std::memory_order_release);
  return b;
}

std::unique_ptr<DeviceBuffer> DeviceBuffer::managed(std::shared_ptr<Context> context, std::size_t bytes) {
  std::unique_ptr<DeviceBuffer> b(new DeviceBuffer(context, bytes, Origin::Managed));
  Context::Scope scope(*context);
  cu::CUdeviceptr ptr = 0;
  const cu::CUresult r = cu::api().cuMemAllocManaged(&ptr, bytes ? bytes : 4, cu::CU_MEM_ATTACH_GLOBAL);
  if (r == cu::CUDA_ERROR_OUT_OF_MEMORY)
    throw BackendError("cuda: out of memory allocating " + std::to_string(bytes) +
                       " bytes (cuMemAllocManaged, memory space 'cuda_managed')");
  cu::check(r, "cuMemAllocManaged");
  b->ptr_.store(ptr, std::memory_order_release);
  b->host_ = reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr));  // one address on host and device
  return b;
}

std::shared_ptr<DeviceBuffer> DeviceBuffer::wrap(std::shared_ptr<Context> context, cu::CUdeviceptr ptr,
                                                 std::size_t bytes, std::shared_ptr<void> keep_alive) {
  std::shared_ptr<DeviceBuffer> b(new DeviceBuffer(std::move(context), bytes, Origin::Outside));
  b->ptr_.store(ptr, std::memory_order_release);
  b->keep_alive_ = std::move(keep_alive);
  b->mark_external();
  return b;
}

DeviceBuffer::~DeviceBuffer() {
  switch (origin_) {
    case Origin::Pool: context_->free(pointer()); return;
    case Origin::Virtual:
      // Unmapping is not stream-ordered: the launches queued on the memory finish first.
      try {
        Context::Scope scope(*context_);
        if (cu::CUstream stream = context_->stream()) cu::api().cuStreamSynchronize(stream);
      } catch (const Error&) {
      }
      virtual_.reset();
      return;
    case Origin::Outside: return;  // shared: every launch using it has completed
    case Origin::Pinned:
    case Origin::Managed:
      // Neither free is stream-ordered: the launches queued on the memory finish first.
      try {
        Context::Scope scope(*context_);
        if (cu::CUstream stream = context_->stream()) cu::api().cuStreamSynchronize(stream);
        if (origin_ == Origin::Pinned)
          cu::api().cuMemFreeHost(host_);
        else
          cu::api().cuMemFree_v2(pointer());
      } catch (const Error&) {
      }
      return;
  }
}

void DeviceBuffer::write(std::size_t offset, const void* src, std::size_t bytes) {
  if (!bytes) return;
  std::shared_lock hold(context_->relocation());
  Context::Scope scope(*context_);
  // From pageable memory the driver stages the bytes before returning, so the caller's memory is free to change.
  cu::check(cu::api().cuMemcpyHtoDAsync_v2(pointer() + offset, src, bytes, context_->stream()), "cuMemcpyHtoDAsync");
}

void DeviceBuffer::read(std::size_t offset, void* dst, std::size_t bytes) {
  if (!bytes) return;
  std::shared_lock hold(context_->relocation());
  // Wait in cuStreamSynchronize, which holds nothing a launch from another thread needs; a copy to pageable
  // memory behind queued work would wait inside the driver with the context held.
  context_->synchronize();
  if (host_) {  // pinned or managed: the host reads the memory itself once the stream is idle
    std::memcpy(dst, static_cast<const char*>(host_) + offset, bytes);
    return;
  }
  Context::Scope scope(*context_);
  cu::check(cu::api().cuMemcpyDtoH_v2(dst, pointer() + offset, bytes), "cuMemcpyDtoH");
}

void DeviceBuffer::fill(const void* element, std::size_t element_size, std::size_t count) {
  if (!count) return;
  std::shared_lock hold(context_->relocation());
  queue_fill(element, element_size, count);
}

bool DeviceBuffer::copy_from(const Buffer& source, std::size_t bytes) {
  const auto* from = dynamic_cast<const DeviceBuffer*>(&source);
  if (!from || from->context_ != context_) return false;
  TACK_CHECK(bytes <= this->bytes() && bytes <= from->bytes());
  if (!bytes) return true;
  std::shared_lock hold(context_->relocation());
  Context::Scope scope(*context_);
  cu::check(cu::api().cuMemcpyDtoDAsync_v2(pointer(), from->pointer(), bytes, context_->stream()), "cuMemcpyDtoDAsync");
  return true;
}

void DeviceBuffer::queue_fill(const void* element, std::size_t element_size, std::size_t count) {
  const cu::Api& api = cu::api();
  Context::Scope scope(*context_);
  cu::CUstream stream = context_->stream();
  const cu::CUdeviceptr ptr = pointer();
  switch (element_size) {
    case 1: {
      unsigned char v;
      std::memcpy(&v, element, 1);
      cu::check(api.cuMemsetD8Async(ptr, v, count, stream), "cuMemsetD8Async");
      return;
    }
    case 2: {
      unsigned short v;
      std::memcpy(&v, element, 2);
      cu::check(api.cuMemsetD16Async(ptr, v, count, stream), "cuMemsetD16Async");
      return;
    }
    case 4: {
      unsigned v;
      std::memcpy(&v, element, 4);
      cu::check(api.cuMemsetD32Async(ptr, v, count, stream), "cuMemsetD32Async");
      return;
    }
    case 8: {
      unsigned half[2];
      std::memcpy(half, element, 8);
      if (half[0] == half[1]) {
        cu::check(api.cuMemsetD32Async(ptr, half[0], 2 * count, stream), "cuMemsetD32Async");
        return;
      }
      // Each half of every element as a column of a pitched 2-D fill: one 32-bit word per 8-byte row.
      cu::check(api.cuMemsetD2D32Async(ptr, 8, half[0], 1, count, stream), "cuMemsetD2D32Async");
      cu::check(api.cuMemsetD2D32Async(ptr + 4, 8, half[1], 1, count, stream), "cuMemsetD2D32Async");
      return;
    }
    default: TACK_UNREACHABLE("fill of an element size that is not 1, 2, 4 or 8 bytes");
  }
}

ExportedMemory DeviceBuffer::export_memory() {
  if (outside_)
    throw InvalidArgument(
        "export_memory(): the array wraps memory from outside Tack (array_from_ptr), which only its owner can "
        "export");
  if (origin_ == Origin::Pinned || origin_ == Origin::Managed)
    throw InvalidArgument(std::string("export_memory(): the array lives in the '") +
                          (origin_ == Origin::Pinned ? "cuda_pinned" : "cuda_managed") +
                          "' memory space; only device memory ('cuda', or empty_exportable) is exported");
  mark_shared();  // before the wait, so a launch another thread makes meanwhile completes
  // No launch, copy or fill may read the address while the memory moves.
  std::unique_lock moving(context_->relocation());
  context_->synchronize();
  if (origin_ == Origin::Pool) {
    auto moved = std::make_unique<VirtualAllocation>(context_, bytes());
    const cu::CUdeviceptr old = pointer();
    {
      Context::Scope scope(*context_);
      if (bytes())
        cu::check(cu::api().cuMemcpyDtoDAsync_v2(moved->pointer(), old, bytes(), context_->stream()),
                  "cuMemcpyDtoDAsync");
    }
    context_->synchronize();
    virtual_ = std::move(moved);
    ptr_.store(virtual_->pointer(), std::memory_order_release);
    origin_ = Origin::Virtual;
    context_->free(old);
  }
  ExportedMemory out;
  out.fd = virtual_->export_fd();
  out.allocation_bytes = virtual_->size();
  out.bytes = bytes();
  out.device_ordinal = context_->device().ordinal;
  return out;
}

cu::CUdeviceptr device_pointer(const ArrayStorage& array) {
  const auto* buffer = dynamic_cast<const DeviceBuffer*>(array.buffer.get());
  if (!buffer) throw InvalidArgument("device_pointer: the array does not live on a cuda device");
  return buffer->pointer();
}

cu::CUdeviceptr device_pointer(const tack::Array& array) {
  if (!array.valid()) throw InvalidArgument("device_pointer of an empty tack::Array");
  return device_pointer(*detail::Access::storage(array));
}

}  // namespace tack::backends::cuda
