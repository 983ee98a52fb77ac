// The CUDA driver API, loaded at run time with dlopen (libcuda.so.1), so Tack
// builds without the CUDA SDK and a machine without a driver only loses the
// cuda backend. Only what Tack calls is declared here, by hand, with the
// driver's exported (versioned) symbol names; tests/unit/test_cuda_api_layout
// checks every type, value and layout below against cuda.h where a toolkit is
// installed.
#pragma once

#include "drivers/entry_points.hpp"
#include "drivers/failure.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tack::drivers::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUtexObject = unsigned long long;
using CUmemGenericAllocationHandle = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUarray = struct CUarray_st*;
using CUmemoryPool = struct CUmemPoolHandle_st*;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUdevice_attribute
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102;
inline constexpr int CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103;
inline constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;

inline constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
inline constexpr unsigned CU_STREAM_DEFAULT = 0;
inline constexpr unsigned CU_EVENT_BLOCKING_SYNC = 1;
inline constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
inline constexpr unsigned kMemHostAllocDeviceMap = 0x02;  // CU_MEMHOSTALLOC_DEVICEMAP (a macro in cuda.h)
inline constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;

// CUjit_option
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// Textures: one f32 channel, linear filtering, clamped, normalized coordinates.
inline constexpr int CU_AD_FORMAT_FLOAT = 0x20;
inline constexpr int CU_MEMORYTYPE_DEVICE = 2;
inline constexpr int CU_MEMORYTYPE_ARRAY = 3;
inline constexpr int CU_RESOURCE_TYPE_ARRAY = 0;
inline constexpr int CU_TR_ADDRESS_MODE_CLAMP = 1;
inline constexpr int CU_TR_FILTER_MODE_LINEAR = 1;
inline constexpr unsigned kTrsfNormalizedCoordinates = 0x02;  // CU_TRSF_NORMALIZED_COORDINATES (a macro in cuda.h)

// Virtual memory management, for exportable buffers.
inline constexpr int CU_MEM_ALLOCATION_TYPE_PINNED = 1;
inline constexpr int CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1;
inline constexpr int CU_MEM_LOCATION_TYPE_DEVICE = 1;
inline constexpr int CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0;
inline constexpr int CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3;

// CUpointer_attribute, for memory from outside Tack.
inline constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

struct CUDA_ARRAY3D_DESCRIPTOR {
  std::size_t Width, Height, Depth;
  int Format;
  unsigned NumChannels;
  unsigned Flags;
};

struct CUDA_MEMCPY3D {
  std::size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void* reserved0;
  std::size_t srcPitch, srcHeight;
  std::size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void* reserved1;
  std::size_t dstPitch, dstHeight;
  std::size_t WidthInBytes, Height, Depth;
};

struct CUDA_RESOURCE_DESC {
  int resType;
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned flags;
};

struct CUDA_TEXTURE_DESC {
  int addressMode[3];
  int filterMode;
  unsigned flags;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};

struct CUmemLocation {
  int type;
  int id;
};

struct CUmemAllocationProp {
  int type;
  int requestedHandleTypes;
  CUmemLocation location;
  void* win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};

struct CUmemAccessDesc {
  CUmemLocation location;
  int flags;
};

// The entry points Tack calls, named as libcuda exports them: X(name, result, parameters).
// clang-format off
#define TACK_CUDA_ENTRY_POINTS(X)                                                                                      \
  X(cuInit, CUresult, (unsigned flags))                                                                                \
  X(cuDriverGetVersion, CUresult, (int* version))                                                                      \
  X(cuGetErrorName, CUresult, (CUresult error, const char** name))                                                     \
  X(cuGetErrorString, CUresult, (CUresult error, const char** text))                                                   \
  X(cuDeviceGetCount, CUresult, (int* count))                                                                          \
  X(cuDeviceGet, CUresult, (CUdevice* device, int ordinal))                                                            \
  X(cuDeviceGetName, CUresult, (char* name, int length, CUdevice device))                                              \
  X(cuDeviceGetAttribute, CUresult, (int* value, int attribute, CUdevice device))                                      \
  X(cuDeviceTotalMem_v2, CUresult, (std::size_t* bytes, CUdevice device))                                              \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext* context, CUdevice device))                                         \
  X(cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice device))                                                         \
  X(cuCtxGetCurrent, CUresult, (CUcontext* context))                                                                   \
  X(cuCtxSetCurrent, CUresult, (CUcontext context))                                                                    \
  X(cuCtxPushCurrent_v2, CUresult, (CUcontext context))                                                                \
  X(cuCtxPopCurrent_v2, CUresult, (CUcontext* context))                                                                \
  X(cuCtxGetDevice, CUresult, (CUdevice* device))                                                                      \
  X(cuStreamCreate, CUresult, (CUstream* stream, unsigned flags))                                                      \
  X(cuStreamDestroy_v2, CUresult, (CUstream stream))                                                                   \
  X(cuStreamSynchronize, CUresult, (CUstream stream))                                                                  \
  X(cuStreamQuery, CUresult, (CUstream stream))                                                                        \
  X(cuEventCreate, CUresult, (CUevent* event, unsigned flags))                                                         \
  X(cuEventRecord, CUresult, (CUevent event, CUstream stream))                                                         \
  X(cuEventSynchronize, CUresult, (CUevent event))                                                                     \
  X(cuEventQuery, CUresult, (CUevent event)) /* the bounded waits (TACK_WAIT_TIMEOUT_S) */                             \
  X(cuEventDestroy_v2, CUresult, (CUevent event))                                                                      \
  X(cuMemGetInfo_v2, CUresult, (std::size_t* free, std::size_t* total))                                                \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr* ptr, std::size_t bytes))                                                    \
  X(cuMemFree_v2, CUresult, (CUdeviceptr ptr))                                                                         \
  X(cuMemAllocAsync, CUresult, (CUdeviceptr* ptr, std::size_t bytes, CUstream stream))                                 \
  X(cuMemHostAlloc, CUresult, (void** ptr, std::size_t bytes, unsigned flags))                                          \
  X(cuMemHostGetDevicePointer_v2, CUresult, (CUdeviceptr* device, void* host, unsigned flags))                         \
  X(cuMemFreeHost, CUresult, (void* ptr))                                                                              \
  X(cuMemAllocManaged, CUresult, (CUdeviceptr* ptr, std::size_t bytes, unsigned flags))                                \
  X(cuMemFreeAsync, CUresult, (CUdeviceptr ptr, CUstream stream))                                                      \
  X(cuDeviceGetDefaultMemPool, CUresult, (CUmemoryPool* pool, CUdevice device))                                        \
  X(cuMemPoolSetAttribute, CUresult, (CUmemoryPool pool, int attribute, void* value))                                  \
  X(cuMemcpyHtoDAsync_v2, CUresult, (CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream))            \
  X(cuMemcpyDtoH_v2, CUresult, (void* dst, CUdeviceptr src, std::size_t bytes))                                        \
  X(cuMemcpyDtoDAsync_v2, CUresult, (CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream))            \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr dst, unsigned char value, std::size_t count, CUstream stream))             \
  X(cuMemsetD16Async, CUresult, (CUdeviceptr dst, unsigned short value, std::size_t count, CUstream stream))           \
  X(cuMemsetD32Async, CUresult, (CUdeviceptr dst, unsigned value, std::size_t count, CUstream stream))                 \
  X(cuMemsetD2D32Async, CUresult,                                                                                      \
    (CUdeviceptr dst, std::size_t pitch, unsigned value, std::size_t width, std::size_t height, CUstream stream))      \
  X(cuModuleLoadDataEx, CUresult, (CUmodule* module, const void* image, unsigned count, int* options, void** values))  \
  X(cuModuleUnload, CUresult, (CUmodule module))                                                                       \
  X(cuModuleGetFunction, CUresult, (CUfunction* function, CUmodule module, const char* name))                          \
  X(cuFuncGetAttribute, CUresult, (int* value, int attribute, CUfunction function))                                    \
  X(cuLaunchKernel, CUresult,                                                                                          \
    (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,                       \
     unsigned shared_bytes, CUstream stream, void** params, void** extra))                                             \
  X(cuArray3DCreate_v2, CUresult, (CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* descriptor))                         \
  X(cuArrayDestroy, CUresult, (CUarray array))                                                                         \
  X(cuMemcpy3DAsync_v2, CUresult, (const CUDA_MEMCPY3D* copy, CUstream stream))                                        \
  X(cuTexObjectCreate, CUresult,                                                                                       \
    (CUtexObject* object, const CUDA_RESOURCE_DESC* resource, const CUDA_TEXTURE_DESC* texture, const void* view))     \
  X(cuTexObjectDestroy, CUresult, (CUtexObject object))                                                                \
  X(cuMemGetAllocationGranularity, CUresult, (std::size_t* granularity, const CUmemAllocationProp* prop, int option))  \
  X(cuMemCreate, CUresult,                                                                                             \
    (CUmemGenericAllocationHandle* handle, std::size_t bytes, const CUmemAllocationProp* prop,                         \
     unsigned long long flags))                                                                                        \
  X(cuMemRelease, CUresult, (CUmemGenericAllocationHandle handle))                                                     \
  X(cuMemAddressReserve, CUresult,                                                                                     \
    (CUdeviceptr* ptr, std::size_t bytes, std::size_t alignment, CUdeviceptr addr, unsigned long long flags))          \
  X(cuMemAddressFree, CUresult, (CUdeviceptr ptr, std::size_t bytes))                                                  \
  X(cuMemMap, CUresult,                                                                                                \
    (CUdeviceptr ptr, std::size_t bytes, std::size_t offset, CUmemGenericAllocationHandle handle,                      \
     unsigned long long flags))                                                                                        \
  X(cuMemUnmap, CUresult, (CUdeviceptr ptr, std::size_t bytes))                                                        \
  X(cuMemSetAccess, CUresult, (CUdeviceptr ptr, std::size_t bytes, const CUmemAccessDesc* desc, std::size_t count))    \
  X(cuMemExportToShareableHandle, CUresult,                                                                            \
    (void* handle, CUmemGenericAllocationHandle allocation, int type, unsigned long long flags))                       \
  X(cuMemGetAddressRange_v2, CUresult, (CUdeviceptr* base, std::size_t* bytes, CUdeviceptr ptr))                       \
  X(cuPointerGetAttribute, CUresult, (void* data, int attribute, CUdeviceptr ptr))
// clang-format on

// The table: a function pointer per row, in the list's order, then the file they came from.
struct Api {
  TACK_CUDA_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
  std::string library;  // the file loaded
};

// The process's driver, loaded and cuInit(0)-ed once; nullptr with the reason
// in *why (when given: no library, a missing symbol, no device, a stub library)
// when there is none. TACK_CUDA_LIBRARY names another file to load instead of
// libcuda.so.1 (tests point it at a stand-in driver). The backend's edge
// (backends/cuda/cuda_driver.hpp) turns a failure into BackendUnavailable.
const Api* load(std::string* why);

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a result code.
std::string error_text(CUresult code);

// The failure record of `call` having returned `code`: nullopt for CUDA_SUCCESS.
std::optional<Failure> failure(CUresult code, const char* call);

}  // namespace tack::drivers::cu
