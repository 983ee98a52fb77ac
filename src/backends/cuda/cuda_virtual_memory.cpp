// Creating, mapping, exporting and releasing virtual-memory allocations.
#include "backends/cuda/cuda_virtual_memory.hpp"

#include "backends/cuda/cuda_driver.hpp"

#include <tack/error.hpp>

namespace tack::backends::cuda {
using namespace tack::runtime;
namespace cu = cuda::driver;
namespace {

cu::CUmemAllocationProp properties(const DeviceInfo& d) {
  cu::CUmemAllocationProp prop{};
  prop.type = cu::CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = cu::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = cu::CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = d.ordinal;
  return prop;
}

}  // namespace

VirtualAllocation::VirtualAllocation(std::shared_ptr<Context> context, std::size_t bytes)
    : context_(std::move(context)) {
  const cu::Api& api = cu::api();
  const DeviceInfo& d = context_->device();
  const cu::CUmemAllocationProp prop = properties(d);
  Context::Scope scope(*context_);
  std::size_t granularity = 0;
  cu::check(api.cuMemGetAllocationGranularity(&granularity, &prop, cu::CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            "cuMemGetAllocationGranularity");
  if (granularity == 0) granularity = 1;
  const std::size_t wanted = bytes ? bytes : 1;
  size_ = (wanted + granularity - 1) / granularity * granularity;
  if (size_ < wanted)
    throw InvalidArgument("cuda: " + std::to_string(bytes) + " bytes of exportable memory overflow the address space");
  try {
    const cu::CUresult created = api.cuMemCreate(&handle_, size_, &prop, 0);
    if (created == cu::CUDA_ERROR_OUT_OF_MEMORY)
      throw BackendError("cuda: out of device memory allocating " + std::to_string(size_) +
                         " bytes of exportable memory on " + d.name + " (cuMemCreate)");
    cu::check(created, "cuMemCreate");
    cu::check(api.cuMemAddressReserve(&ptr_, size_, 0, 0, 0), "cuMemAddressReserve");
    cu::check(api.cuMemMap(ptr_, size_, 0, handle_, 0), "cuMemMap");
    mapped_ = true;
    cu::CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = cu::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    cu::check(api.cuMemSetAccess(ptr_, size_, &access, 1), "cuMemSetAccess");
  } catch (...) {
    release();
    throw;
  }
}

VirtualAllocation::~VirtualAllocation() { release(); }

void VirtualAllocation::release() noexcept {
  const cu::Api& api = cu::api();
  try {
    Context::Scope scope(*context_);
    if (mapped_) api.cuMemUnmap(ptr_, size_);
    if (ptr_) api.cuMemAddressFree(ptr_, size_);
    // The physical memory stays while another process or API still maps an exported handle.
    if (handle_) api.cuMemRelease(handle_);
  } catch (const Error&) {
    // The context is gone with the driver (process exit): so is the memory.
  }
  mapped_ = false;
  ptr_ = 0;
  handle_ = 0;
}

int VirtualAllocation::export_fd() const {
  int fd = -1;
  Context::Scope scope(*context_);
  cu::check(cu::api().cuMemExportToShareableHandle(&fd, handle_, cu::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            "cuMemExportToShareableHandle");
  return fd;
}

}  // namespace tack::backends::cuda
