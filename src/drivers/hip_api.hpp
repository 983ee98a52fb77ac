// The HIP runtime API, loaded at run time with dlopen (libamdhip64.so), so Tack
// builds without ROCm and a machine without it only loses the hip backend.
// Only what Tack calls is declared here, by hand. The enum values follow
// ROCm 6's hip_runtime_api.h (ROCm/HIP, 2024-10), checked equal to ROCm 5.2's
// installed header for every attribute used below: the hipDeviceAttribute_t
// enum was renumbered in ROCm 5.0 (4.x used other values), so a runtime older
// than 5 is refused by version rather than asked with the wrong numbers.
#pragma once

#include "drivers/entry_points.hpp"
#include "drivers/failure.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tack::drivers::hip {

using hipError_t = int;
using hipDeviceptr_t = void*;
using hipStream_t = struct ihipStream_t*;
using hipEvent_t = struct ihipEvent_t*;
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipMemPool_t = struct ihipMemPoolHandle_t*;

inline constexpr hipError_t hipSuccess = 0;
inline constexpr hipError_t hipErrorOutOfMemory = 2;
inline constexpr hipError_t hipErrorNoDevice = 100;
inline constexpr hipError_t hipErrorInvalidDevice = 101;
inline constexpr hipError_t hipErrorNotReady = 600;

// hipDeviceAttribute_t (ROCm >= 5.0 numbering)
inline constexpr int hipDeviceAttributeMaxGridDimX = 29;
inline constexpr int hipDeviceAttributeMaxTexture3DWidth = 49;
inline constexpr int hipDeviceAttributeMaxTexture3DHeight = 50;
inline constexpr int hipDeviceAttributeMaxTexture3DDepth = 51;
inline constexpr int hipDeviceAttributeMaxThreadsPerBlock = 56;
inline constexpr int hipDeviceAttributeMultiprocessorCount = 63;
inline constexpr int hipDeviceAttributeMemoryPoolsSupported = 88;
inline constexpr int hipDeviceAttributeImageSupport = 10014;  // hipDeviceAttributeAmdSpecificBegin + 14

inline constexpr int hipMemPoolAttrReleaseThreshold = 4;
inline constexpr unsigned hipHostMallocMapped = 0x2;
inline constexpr unsigned hipMemAttachGlobal = 0x1;
// hipPointer_attribute: the device a pointer's memory belongs to (as CUDA's CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL).
inline constexpr int HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
inline constexpr unsigned hipStreamDefault = 0;  // blocking: ordered with the null stream
inline constexpr unsigned hipEventBlockingSync = 1;
inline constexpr unsigned hipEventDisableTiming = 2;

// Textures, through the runtime-style structs: equal in ROCm 5.2's installed headers and ROCm 6's
// (test_hip_texture_layout.cpp checks them against the installed driver_types.h and texture_types.h). The
// driver-style HIP_MEMCPY3D is not used: ROCm 6 widened its fields from unsigned to size_t.
using hipArray_t = struct hipArray*;
using hipTextureObject_t = struct __hip_texture*;
inline constexpr int hipChannelFormatKindFloat = 2;
inline constexpr int hipResourceTypeArray = 0;
inline constexpr int hipAddressModeClamp = 1;
inline constexpr int hipFilterModeLinear = 1;
inline constexpr int hipReadModeElementType = 0;
inline constexpr int hipMemcpyDeviceToDevice = 3;
struct hipChannelFormatDesc {
  int x, y, z, w;  // bits per channel
  int f;           // hipChannelFormatKind
};
struct hipExtent {
  std::size_t width, height, depth;  // width in elements for an array
};
struct hipPos {
  std::size_t x, y, z;
};
struct hipPitchedPtr {
  void* ptr;
  std::size_t pitch, xsize, ysize;
};
struct hipMemcpy3DParms {
  hipArray_t srcArray;
  hipPos srcPos;
  hipPitchedPtr srcPtr;
  hipArray_t dstArray;
  hipPos dstPos;
  hipPitchedPtr dstPtr;
  hipExtent extent;
  int kind;  // hipMemcpyKind
};
struct hipResourceDesc {
  int resType;  // hipResourceType
  union {
    struct {
      hipArray_t array;
    } array;
    struct {  // the largest member (pitch2D), so the union has the header's size
      void* devPtr;
      hipChannelFormatDesc desc;
      std::size_t width, height, pitchInBytes;
    } pitch2D;
  } res;
};
struct hipTextureDesc {
  int addressMode[3];  // hipTextureAddressMode
  int filterMode;      // hipTextureFilterMode
  int readMode;        // hipTextureReadMode
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
};

// hipDeviceProp_tR0600 (ROCm 6+, hipGetDevicePropertiesR0600): 1472 bytes, gcnArchName (char[256]) at 1160.
// Asked into a larger zeroed buffer, so a later, longer struct cannot overrun it.
inline constexpr std::size_t kDevicePropR0600GcnArchNameOffset = 1160;
inline constexpr std::size_t kDevicePropBufferBytes = 4096;

// The entry points Tack calls, as libamdhip64 exports them: X(name, result, parameters).
// clang-format off
#define TACK_HIP_ENTRY_POINTS(X)                                                                                       \
  X(hipInit, hipError_t, (unsigned flags))                                                                             \
  X(hipRuntimeGetVersion, hipError_t, (int* version))                                                                  \
  X(hipGetErrorName, const char*, (hipError_t error))                                                                  \
  X(hipGetErrorString, const char*, (hipError_t error))                                                                \
  X(hipGetDeviceCount, hipError_t, (int* count))                                                                       \
  X(hipGetDevice, hipError_t, (int* device))                                                                           \
  X(hipSetDevice, hipError_t, (int device))                                                                            \
  X(hipDeviceGetName, hipError_t, (char* name, int length, int device))                                                \
  X(hipDeviceGetAttribute, hipError_t, (int* value, int attribute, int device))                                        \
  X(hipDeviceTotalMem, hipError_t, (std::size_t* bytes, int device))                                                   \
  X(hipStreamCreateWithFlags, hipError_t, (hipStream_t* stream, unsigned flags))                                       \
  X(hipStreamDestroy, hipError_t, (hipStream_t stream))                                                                \
  X(hipEventCreateWithFlags, hipError_t, (hipEvent_t* event, unsigned flags))                                          \
  X(hipEventRecord, hipError_t, (hipEvent_t event, hipStream_t stream))                                                \
  X(hipEventSynchronize, hipError_t, (hipEvent_t event))                                                               \
  X(hipEventQuery, hipError_t, (hipEvent_t event)) /* the bounded waits (TACK_WAIT_TIMEOUT_S) */                       \
  X(hipEventDestroy, hipError_t, (hipEvent_t event))                                                                   \
  X(hipMalloc, hipError_t, (void** ptr, std::size_t bytes))                                                            \
  X(hipFree, hipError_t, (void* ptr))                                                                                  \
  X(hipMallocAsync, hipError_t, (void** ptr, std::size_t bytes, hipStream_t stream))                                   \
  X(hipFreeAsync, hipError_t, (void* ptr, hipStream_t stream))                                                         \
  X(hipDeviceGetDefaultMemPool, hipError_t, (hipMemPool_t* pool, int device))                                          \
  X(hipMemPoolSetAttribute, hipError_t, (hipMemPool_t pool, int attribute, void* value))                               \
  X(hipHostMalloc, hipError_t, (void** ptr, std::size_t bytes, unsigned flags))                                        \
  X(hipHostGetDevicePointer, hipError_t, (void** device, void* host, unsigned flags))                                  \
  X(hipHostFree, hipError_t, (void* ptr))                                                                              \
  X(hipMallocManaged, hipError_t, (void** ptr, std::size_t bytes, unsigned flags))                                     \
  X(hipMemcpyHtoDAsync, hipError_t, (hipDeviceptr_t dst, void* src, std::size_t bytes, hipStream_t stream))            \
  X(hipMemcpyDtoHAsync, hipError_t, (void* dst, hipDeviceptr_t src, std::size_t bytes, hipStream_t stream))            \
  X(hipMemcpyDtoDAsync, hipError_t, (hipDeviceptr_t dst, hipDeviceptr_t src, std::size_t bytes, hipStream_t stream))   \
  X(hipMemsetD8Async, hipError_t, (hipDeviceptr_t dst, unsigned char value, std::size_t count, hipStream_t stream))    \
  X(hipMemsetD16Async, hipError_t, (hipDeviceptr_t dst, unsigned short value, std::size_t count, hipStream_t stream))  \
  X(hipMemsetD32Async, hipError_t, (hipDeviceptr_t dst, int value, std::size_t count, hipStream_t stream))             \
  X(hipMalloc3DArray, hipError_t,                                                                                      \
    (hipArray_t* array, const hipChannelFormatDesc* desc, hipExtent extent, unsigned flags))                           \
  X(hipFreeArray, hipError_t, (hipArray_t array))                                                                      \
  X(hipMemcpy3DAsync, hipError_t, (const hipMemcpy3DParms* copy, hipStream_t stream))                                  \
  X(hipCreateTextureObject, hipError_t,                                                                                \
    (hipTextureObject_t* object, const hipResourceDesc* resource, const hipTextureDesc* texture, const void* view))    \
  X(hipDestroyTextureObject, hipError_t, (hipTextureObject_t object))                                                  \
  X(hipModuleLoadData, hipError_t, (hipModule_t* module, const void* image))                                           \
  X(hipModuleUnload, hipError_t, (hipModule_t module))                                                                 \
  X(hipModuleGetFunction, hipError_t, (hipFunction_t* function, hipModule_t module, const char* name))                 \
  X(hipModuleLaunchKernel, hipError_t,                                                                                 \
    (hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,                    \
     unsigned shared_bytes, hipStream_t stream, void** params, void** extra))

// Optional, resolved only once every entry above was: nullptr where the runtime lacks them.
// hipGetDevicePropertiesR0600, ROCm 6+ only: the properties struct whose layout Tack knows, for gcnArchName.
// hipPointerGetAttribute and hipMemGetAddressRange check memory from outside Tack (array_from_ptr); one
// attribute is asked rather than hipPointerGetAttributes' struct, whose memory types ROCm 6 renumbered.
#define TACK_HIP_OPTIONAL_ENTRY_POINTS(X)                                                                              \
  X(hipGetDevicePropertiesR0600, hipError_t, (void* properties, int device))                                           \
  X(hipPointerGetAttribute, hipError_t, (void* data, int attribute, hipDeviceptr_t ptr))                               \
  X(hipMemGetAddressRange, hipError_t, (hipDeviceptr_t* base, std::size_t* size, hipDeviceptr_t ptr))
// clang-format on

// The table: a function pointer per row, in the lists' order, then what load() learnt.
struct Api {
  TACK_HIP_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
  TACK_HIP_OPTIONAL_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
  std::string library;      // the file loaded
  int runtime_version = 0;  // hipRuntimeGetVersion: major * 10000000 + minor * 100000 + patch
};

// The process's HIP runtime, loaded and hipInit(0)-ed once; nullptr with the
// reason in *why (when given: no library, a missing symbol, a runtime older
// than ROCm 5, a code object manager that would abort the process, no device)
// when there is none. TACK_HIP_LIBRARY names another file to load instead of
// libamdhip64.so. The backend's edge (backends/hip/hip_driver.hpp) turns a
// failure into BackendUnavailable.
const Api* load(std::string* why);

// {major, minor} of a hipRuntimeGetVersion value (50221153 is ROCm 5.2).
struct RuntimeVersion {
  int major = 0, minor = 0;
};
RuntimeVersion split_runtime_version(int version);

// The reference's known toolchain defect: ROCm 7.0 and 7.1's device compiler
// (AMD clang 20 in comgr) evaluates a 64-bit signed -253 < -1 inside one
// generated integer expression as false at -O1 and above. A test of that
// expression is a strict expected failure exactly where this is true.
bool has_integer_expression_miscompile(RuntimeVersion v);

// The DT_NEEDED entries of the ELF shared object at `path` (empty when it cannot be read).
std::vector<std::string> elf_needed(const std::string& path);

// Whether a code object manager with these DT_NEEDED entries shares a libLLVM
// or libclang-cpp with the rest of the process (Debian's ROCm packages link
// the system LLVM; AMD's comgr carries its own, hidden). See hip_api.cpp.
bool links_shared_llvm(const std::vector<std::string>& needed);

// "hipErrorOutOfMemory (out of memory)" for an error code.
std::string error_text(hipError_t code);

// The failure record of `call` having returned `code`: nullopt for hipSuccess.
std::optional<Failure> failure(hipError_t code, const char* call);

}  // namespace tack::drivers::hip
