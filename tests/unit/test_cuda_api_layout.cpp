// Checks the hand-written CUDA driver declarations (src/drivers/cuda_api.hpp)
// against the toolkit's cuda.h, at compile time: every constant's value, every
// struct's size and field offsets, every entry point's type and that its name
// is the version cuda.h currently maps the plain name to (cuMemAlloc ->
// cuMemAlloc_v2). The entry points are the driver table's own list
// (TACK_CUDA_ENTRY_POINTS), not a copy. Built only where CMake finds cuda.h.
// The runtime tests check that the toolkit's stub libcuda.so exports every name
// the table resolves.
#include "drivers/cuda_api.hpp"  // first: it must not depend on cuda.h

#include <cuda.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <string_view>
#include <type_traits>

#include <dlfcn.h>

namespace cu = tack::drivers::cu;

namespace {

// ---- constants ------------------------------------------------------------------

#define TACK_SAME_CONSTANT(name) \
  static_assert(static_cast<long long>(cu::name) == static_cast<long long>(::name), #name " differs from cuda.h")

TACK_SAME_CONSTANT(CUDA_SUCCESS);
TACK_SAME_CONSTANT(CUDA_ERROR_INVALID_VALUE);
TACK_SAME_CONSTANT(CUDA_ERROR_OUT_OF_MEMORY);
TACK_SAME_CONSTANT(CUDA_ERROR_DEINITIALIZED);
TACK_SAME_CONSTANT(CUDA_ERROR_STUB_LIBRARY);
TACK_SAME_CONSTANT(CUDA_ERROR_NO_DEVICE);
TACK_SAME_CONSTANT(CUDA_ERROR_NOT_READY);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
TACK_SAME_CONSTANT(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
TACK_SAME_CONSTANT(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
TACK_SAME_CONSTANT(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD);
TACK_SAME_CONSTANT(CU_STREAM_DEFAULT);
TACK_SAME_CONSTANT(CU_EVENT_BLOCKING_SYNC);
TACK_SAME_CONSTANT(CU_EVENT_DISABLE_TIMING);
TACK_SAME_CONSTANT(CU_JIT_ERROR_LOG_BUFFER);
TACK_SAME_CONSTANT(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
TACK_SAME_CONSTANT(CU_AD_FORMAT_FLOAT);
TACK_SAME_CONSTANT(CU_MEMORYTYPE_DEVICE);
TACK_SAME_CONSTANT(CU_MEMORYTYPE_ARRAY);
TACK_SAME_CONSTANT(CU_RESOURCE_TYPE_ARRAY);
TACK_SAME_CONSTANT(CU_TR_ADDRESS_MODE_CLAMP);
TACK_SAME_CONSTANT(CU_TR_FILTER_MODE_LINEAR);
TACK_SAME_CONSTANT(CU_MEM_ALLOCATION_TYPE_PINNED);
TACK_SAME_CONSTANT(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
TACK_SAME_CONSTANT(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
TACK_SAME_CONSTANT(CU_MEM_LOCATION_TYPE_DEVICE);
TACK_SAME_CONSTANT(CU_MEM_ALLOC_GRANULARITY_MINIMUM);
TACK_SAME_CONSTANT(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
// A macro in cuda.h, so Tack's name differs.
static_assert(cu::kTrsfNormalizedCoordinates == CU_TRSF_NORMALIZED_COORDINATES);

// ---- scalar and handle types ------------------------------------------------------

static_assert(sizeof(cu::CUresult) == sizeof(::CUresult));
static_assert(std::is_same_v<cu::CUdevice, ::CUdevice>);
static_assert(std::is_same_v<cu::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<cu::CUtexObject, ::CUtexObject>);
static_assert(std::is_same_v<cu::CUmemGenericAllocationHandle, ::CUmemGenericAllocationHandle>);

// ---- structs: size and every field's offset -----------------------------------------

#define TACK_SAME_FIELD(type, field)                                                                 \
  static_assert(offsetof(cu::type, field) == offsetof(::type, field),                                \
                #type "::" #field " is at another offset than in cuda.h");                           \
  static_assert(sizeof(cu::type::field) == sizeof(::type::field), #type "::" #field                  \
                                                                        " has another size than in " \
                                                                        "cuda.h")
#define TACK_SAME_SIZE(type) \
  static_assert(sizeof(cu::type) == sizeof(::type) && alignof(cu::type) == alignof(::type), #type " differs in size")

TACK_SAME_SIZE(CUDA_ARRAY3D_DESCRIPTOR);
TACK_SAME_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Width);
TACK_SAME_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Height);
TACK_SAME_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Depth);
TACK_SAME_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Format);
TACK_SAME_FIELD(CUDA_ARRAY3D_DESCRIPTOR, NumChannels);
TACK_SAME_FIELD(CUDA_ARRAY3D_DESCRIPTOR, Flags);

TACK_SAME_SIZE(CUDA_MEMCPY3D);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcXInBytes);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcY);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcZ);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcLOD);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcMemoryType);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcHost);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcDevice);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcArray);
TACK_SAME_FIELD(CUDA_MEMCPY3D, reserved0);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcPitch);
TACK_SAME_FIELD(CUDA_MEMCPY3D, srcHeight);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstXInBytes);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstY);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstZ);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstLOD);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstMemoryType);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstHost);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstDevice);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstArray);
TACK_SAME_FIELD(CUDA_MEMCPY3D, reserved1);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstPitch);
TACK_SAME_FIELD(CUDA_MEMCPY3D, dstHeight);
TACK_SAME_FIELD(CUDA_MEMCPY3D, WidthInBytes);
TACK_SAME_FIELD(CUDA_MEMCPY3D, Height);
TACK_SAME_FIELD(CUDA_MEMCPY3D, Depth);

TACK_SAME_SIZE(CUDA_RESOURCE_DESC);
TACK_SAME_FIELD(CUDA_RESOURCE_DESC, resType);
TACK_SAME_FIELD(CUDA_RESOURCE_DESC, res);
TACK_SAME_FIELD(CUDA_RESOURCE_DESC, flags);
static_assert(offsetof(cu::CUDA_RESOURCE_DESC, res.array.hArray) == offsetof(::CUDA_RESOURCE_DESC, res.array.hArray));

TACK_SAME_SIZE(CUDA_TEXTURE_DESC);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, addressMode);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, filterMode);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, flags);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, maxAnisotropy);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, mipmapFilterMode);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, mipmapLevelBias);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, minMipmapLevelClamp);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, maxMipmapLevelClamp);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, borderColor);
TACK_SAME_FIELD(CUDA_TEXTURE_DESC, reserved);

TACK_SAME_SIZE(CUmemLocation);
TACK_SAME_FIELD(CUmemLocation, type);
TACK_SAME_FIELD(CUmemLocation, id);

TACK_SAME_SIZE(CUmemAllocationProp);
TACK_SAME_FIELD(CUmemAllocationProp, type);
TACK_SAME_FIELD(CUmemAllocationProp, requestedHandleTypes);
TACK_SAME_FIELD(CUmemAllocationProp, location);
TACK_SAME_FIELD(CUmemAllocationProp, win32HandleMetaData);
TACK_SAME_FIELD(CUmemAllocationProp, allocFlags);
static_assert(offsetof(cu::CUmemAllocationProp, allocFlags.compressionType) ==
              offsetof(::CUmemAllocationProp, allocFlags.compressionType));
static_assert(offsetof(cu::CUmemAllocationProp, allocFlags.gpuDirectRDMACapable) ==
              offsetof(::CUmemAllocationProp, allocFlags.gpuDirectRDMACapable));
static_assert(offsetof(cu::CUmemAllocationProp, allocFlags.usage) == offsetof(::CUmemAllocationProp, allocFlags.usage));
static_assert(offsetof(cu::CUmemAllocationProp, allocFlags.reserved) ==
              offsetof(::CUmemAllocationProp, allocFlags.reserved));

TACK_SAME_SIZE(CUmemAccessDesc);
TACK_SAME_FIELD(CUmemAccessDesc, location);
TACK_SAME_FIELD(CUmemAccessDesc, flags);

// ---- entry points -------------------------------------------------------------------
//
// Tack's types map to cuda.h's: the opaque handles are distinct incomplete
// structs in Tack's namespace (same representation), the structs above are
// checked field by field, and an enum parameter is declared int (same size).
// Anything else must be the same type.

template <class T>
struct Mapped {
  using type = T;
};
#define TACK_MAP(tack_type, cuda_type) \
  template <>                          \
  struct Mapped<tack_type> {           \
    using type = cuda_type;            \
  }
TACK_MAP(cu::CUctx_st, ::CUctx_st);
TACK_MAP(cu::CUmod_st, ::CUmod_st);
TACK_MAP(cu::CUfunc_st, ::CUfunc_st);
TACK_MAP(cu::CUstream_st, ::CUstream_st);
TACK_MAP(cu::CUevent_st, ::CUevent_st);
TACK_MAP(cu::CUarray_st, ::CUarray_st);
TACK_MAP(cu::CUmemPoolHandle_st, ::CUmemPoolHandle_st);
TACK_MAP(cu::CUDA_ARRAY3D_DESCRIPTOR, ::CUDA_ARRAY3D_DESCRIPTOR);
TACK_MAP(cu::CUDA_MEMCPY3D, ::CUDA_MEMCPY3D);
TACK_MAP(cu::CUDA_RESOURCE_DESC, ::CUDA_RESOURCE_DESC);
TACK_MAP(cu::CUDA_TEXTURE_DESC, ::CUDA_TEXTURE_DESC);
TACK_MAP(cu::CUmemAllocationProp, ::CUmemAllocationProp);
TACK_MAP(cu::CUmemAccessDesc, ::CUmemAccessDesc);
TACK_MAP(cu::CUmemLocation, ::CUmemLocation);

// Whether Tack's type T may stand for cuda.h's type C in a declaration.
template <class T, class C>
constexpr bool compatible() {
  using M = typename Mapped<std::remove_cv_t<T>>::type;
  if constexpr (std::is_same_v<T, C>) {
    return true;
  } else if constexpr (std::is_enum_v<C>) {
    // An enum declared as int: same size, and int (Tack's spelling for every enum).
    return std::is_same_v<T, int> && sizeof(T) == sizeof(C);
  } else if constexpr (std::is_pointer_v<T> && std::is_pointer_v<C>) {
    using TP = std::remove_pointer_t<T>;
    using CP = std::remove_pointer_t<C>;
    if constexpr (std::is_const_v<TP> != std::is_const_v<CP> || std::is_volatile_v<TP> != std::is_volatile_v<CP>) {
      return false;
    } else if constexpr (std::is_void_v<TP> && std::is_object_v<CP>) {
      return true;  // an optional descriptor Tack only passes as nullptr (cuTexObjectCreate's view)
    } else {
      return compatible<TP, CP>();
    }
  } else {
    return std::is_same_v<std::remove_cv_t<M>, std::remove_cv_t<C>> && std::is_const_v<T> == std::is_const_v<C>;
  }
}

template <class T, class C>
struct SameFunction : std::false_type {};
template <class TR, class... TA, class CR, class... CA>
struct SameFunction<TR (*)(TA...), CR (*)(CA...)> {
  static constexpr bool value = [] {
    if constexpr (sizeof...(TA) != sizeof...(CA))
      return false;
    else
      return compatible<TR, CR>() && (compatible<TA, CA>() && ...);
  }();
};

constexpr bool same_text(std::string_view a, std::string_view b) { return a == b; }
#define TACK_TEXT(x) #x
#define TACK_EXPANDED(x) TACK_TEXT(x)

// A name with a version suffix (cuMemAlloc_v2), as the driver exports a renamed entry point.
constexpr bool has_version_suffix(std::string_view name) {
  const std::size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 == name.size()) return false;
  for (std::size_t i = v + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}

// The one fact the driver table does not hold: for each versioned row, the plain
// name programs write, which cuda.h must #define to that version (cuMemAlloc to
// cuMemAlloc_v2, not to a newer one). X(member, plain).
#define TACK_CU_RENAMES(X)                                   \
  X(cuDeviceTotalMem_v2, cuDeviceTotalMem)                   \
  X(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease) \
  X(cuCtxPushCurrent_v2, cuCtxPushCurrent)                   \
  X(cuCtxPopCurrent_v2, cuCtxPopCurrent)                     \
  X(cuStreamDestroy_v2, cuStreamDestroy)                     \
  X(cuEventDestroy_v2, cuEventDestroy)                       \
  X(cuMemGetInfo_v2, cuMemGetInfo)                           \
  X(cuMemAlloc_v2, cuMemAlloc)                               \
  X(cuMemFree_v2, cuMemFree)                                 \
  X(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync)                 \
  X(cuMemcpyDtoH_v2, cuMemcpyDtoH)                           \
  X(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync)                 \
  X(cuArray3DCreate_v2, cuArray3DCreate)                     \
  X(cuMemcpy3DAsync_v2, cuMemcpy3DAsync)                     \
  X(cuMemGetAddressRange_v2, cuMemGetAddressRange)           \
  X(cuMemHostGetDevicePointer_v2, cuMemHostGetDevicePointer)

#define TACK_CHECK_RENAME(member, plain)                                                                      \
  static_assert(std::is_member_object_pointer_v<decltype(&cu::Api::member)>, #member " is not in the table"); \
  static_assert(same_text(TACK_EXPANDED(plain), #member),                                                     \
                "cuda.h maps " #plain " to another version than " #member ": " TACK_EXPANDED(plain));
TACK_CU_RENAMES(TACK_CHECK_RENAME)

#define TACK_RENAMED_NAME(member, plain) #member,
constexpr std::string_view kRenamed[] = {TACK_CU_RENAMES(TACK_RENAMED_NAME)};
constexpr bool renamed(std::string_view name) {
  for (std::string_view r : kRenamed)
    if (r == name) return true;
  return false;
}

// Each row of the driver table (TACK_CUDA_ENTRY_POINTS in cuda_api.hpp, the one
// list of the entry points) is declared as cuda.h declares it. A plain name must
// be one cuda.h leaves alone (were cuStreamQuery #defined to cuStreamQuery_v2, the
// table would load the old version); a versioned one needs its row above.
#define TACK_CHECK_ENTRY(name, result, parameters)                                         \
  static_assert(SameFunction<decltype(cu::Api::name), decltype(&::name)>::value,           \
                "Api::" #name " is declared differently from cuda.h");                     \
  static_assert(has_version_suffix(#name) || same_text(TACK_EXPANDED(name), #name),        \
                "cuda.h maps " #name " to a versioned entry point: " TACK_EXPANDED(name)); \
  static_assert(!has_version_suffix(#name) || renamed(#name), #name " is versioned: add it to TACK_CU_RENAMES");
TACK_CUDA_ENTRY_POINTS(TACK_CHECK_ENTRY)

#define TACK_COUNT_ENTRY(name, result, parameters) +1
constexpr int kEntries = 0 TACK_CUDA_ENTRY_POINTS(TACK_COUNT_ENTRY);
// The list covers the whole table: every member but `library` is one of its rows.
static_assert(sizeof(cu::Api) == kEntries * sizeof(void*) + sizeof(std::string),
              "cu::Api has members outside TACK_CUDA_ENTRY_POINTS, which this test does not check");

#define TACK_ENTRY_NAME(name, result, parameters) #name,
constexpr const char* kEntryNames[] = {TACK_CUDA_ENTRY_POINTS(TACK_ENTRY_NAME)};

}  // namespace

// The compile-time checks above are the test; this makes them visible in ctest.
TEST(CudaApiLayout, DeclarationsMatchCudaH) {
  EXPECT_EQ(static_cast<int>(std::size(kEntryNames)), kEntries);
  EXPECT_GE(CUDA_VERSION, 12000) << "checked against an old cuda.h";
}

// Each name the table resolves is exported by the toolkit's stub libcuda.so
// (which exports the driver's whole interface): a misspelt or retired version
// suffix fails here instead of making every machine report "lacks <name>".
TEST(CudaApiLayout, StubLibraryExportsEveryEntry) {
  void* stub = dlopen(TACK_CUDA_STUB_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (!stub) GTEST_SKIP() << "no stub libcuda.so at " TACK_CUDA_STUB_LIBRARY ": " << dlerror();
  for (const char* name : kEntryNames) EXPECT_NE(dlsym(stub, name), nullptr) << name << " is not exported";
  dlclose(stub);
}
