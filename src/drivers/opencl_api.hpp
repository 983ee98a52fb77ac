// The OpenCL API, loaded at run time with dlopen (libOpenCL.so.1, the ICD
// loader), so Tack has no link-time dependency on OpenCL and a machine without
// it only loses the opencl backend. Only the types, constants and functions
// Tack uses are declared here, by hand, following the Khronos headers (CL/cl.h
// is deliberately not included: it may be absent where Tack is built).
#pragma once

#include "drivers/entry_points.hpp"
#include "drivers/failure.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tack::drivers::cl {

using cl_int = std::int32_t;
using cl_uint = std::uint32_t;
using cl_long = std::int64_t;
using cl_ulong = std::uint64_t;
using cl_bool = cl_uint;
using cl_bitfield = cl_ulong;
using cl_device_type = cl_bitfield;
using cl_mem_flags = cl_bitfield;
using cl_command_queue_properties = cl_bitfield;
using cl_context_properties = std::intptr_t;
using cl_platform_id = struct _cl_platform_id*;
using cl_device_id = struct _cl_device_id*;
using cl_context = struct _cl_context*;
using cl_command_queue = struct _cl_command_queue*;
using cl_mem = struct _cl_mem*;
using cl_program = struct _cl_program*;
using cl_kernel = struct _cl_kernel*;
using cl_event = struct _cl_event*;

inline constexpr cl_int CL_SUCCESS = 0;
inline constexpr cl_int CL_DEVICE_NOT_FOUND = -1;
inline constexpr cl_int CL_DEVICE_NOT_AVAILABLE = -2;
inline constexpr cl_int CL_OUT_OF_RESOURCES = -5;
inline constexpr cl_int CL_BUILD_PROGRAM_FAILURE = -11;
inline constexpr cl_int CL_PLATFORM_NOT_FOUND_KHR = -1001;
inline constexpr cl_bool CL_FALSE = 0;
inline constexpr cl_bool CL_TRUE = 1;

inline constexpr cl_uint CL_PLATFORM_VERSION = 0x0901;
inline constexpr cl_uint CL_PLATFORM_NAME = 0x0902;

inline constexpr cl_device_type CL_DEVICE_TYPE_GPU = 1 << 2;
inline constexpr cl_device_type CL_DEVICE_TYPE_ALL = 0xFFFFFFFF;

inline constexpr cl_uint CL_DEVICE_TYPE = 0x1000;
inline constexpr cl_uint CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002;
inline constexpr cl_uint CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004;
inline constexpr cl_uint CL_DEVICE_ADDRESS_BITS = 0x100D;
inline constexpr cl_uint CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010;
inline constexpr cl_uint CL_DEVICE_SINGLE_FP_CONFIG = 0x101B;
inline constexpr cl_uint CL_DEVICE_LOCAL_MEM_SIZE = 0x1023;
inline constexpr cl_uint CL_DEVICE_NAME = 0x102B;
inline constexpr cl_uint CL_DRIVER_VERSION = 0x102D;
inline constexpr cl_uint CL_DEVICE_VERSION = 0x102F;
inline constexpr cl_uint CL_DEVICE_EXTENSIONS = 0x1030;
inline constexpr cl_uint CL_DEVICE_OPENCL_C_VERSION = 0x103D;
inline constexpr cl_uint CL_DEVICE_OPENCL_C_ALL_VERSIONS = 0x1066;  // OpenCL 3.0

inline constexpr cl_bitfield CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1 << 7;

inline constexpr cl_mem_flags CL_MEM_READ_WRITE = 1 << 0;

// clGetMemObjectInfo, for a cl_mem from outside Tack (array_from_ptr).
inline constexpr cl_uint CL_MEM_TYPE = 0x1100;
inline constexpr cl_uint CL_MEM_SIZE = 0x1102;
inline constexpr cl_uint CL_MEM_CONTEXT = 0x1106;
inline constexpr cl_uint CL_MEM_OBJECT_BUFFER = 0x10F0;

inline constexpr cl_uint CL_PROGRAM_BINARY_SIZES = 0x1165;
inline constexpr cl_uint CL_PROGRAM_BINARIES = 0x1166;
inline constexpr cl_uint CL_PROGRAM_BUILD_LOG = 0x1183;
inline constexpr cl_uint CL_KERNEL_WORK_GROUP_SIZE = 0x11B0;
inline constexpr cl_uint CL_EVENT_COMMAND_EXECUTION_STATUS = 0x11D3;
inline constexpr cl_int CL_COMPLETE = 0;  // an execution status; negative ones are errors

// cl_name_version (OpenCL 3.0): a packed version (major << 22 | minor << 12 | patch) and a name.
struct cl_name_version {
  cl_uint version;
  char name[64];
};

using BuildCallback = void (*)(cl_program, void*);
using ContextCallback = void (*)(const char*, const void*, std::size_t, void*);

// The entry points Tack calls, resolved once per process: X(name, result, parameters).
// clang-format off
#define TACK_OPENCL_ENTRY_POINTS(X)                                                                                    \
  X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id*, cl_uint*))                                                    \
  X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_uint, std::size_t, void*, std::size_t*))                            \
  X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_device_type, cl_uint, cl_device_id*, cl_uint*))                        \
  X(clGetDeviceInfo, cl_int, (cl_device_id, cl_uint, std::size_t, void*, std::size_t*))                                \
  X(clCreateContext, cl_context,                                                                                       \
    (const cl_context_properties*, cl_uint, const cl_device_id*, ContextCallback, void*, cl_int*))                     \
  X(clReleaseContext, cl_int, (cl_context))                                                                            \
  X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, cl_command_queue_properties, cl_int*))          \
  X(clReleaseCommandQueue, cl_int, (cl_command_queue))                                                                 \
  X(clCreateBuffer, cl_mem, (cl_context, cl_mem_flags, std::size_t, void*, cl_int*))                                   \
  X(clReleaseMemObject, cl_int, (cl_mem))                                                                              \
  X(clGetMemObjectInfo, cl_int, (cl_mem, cl_uint, std::size_t, void*, std::size_t*))                                   \
  X(clEnqueueWriteBuffer, cl_int,                                                                                      \
    (cl_command_queue, cl_mem, cl_bool, std::size_t, std::size_t, const void*, cl_uint, const cl_event*, cl_event*))   \
  X(clEnqueueReadBuffer, cl_int,                                                                                       \
    (cl_command_queue, cl_mem, cl_bool, std::size_t, std::size_t, void*, cl_uint, const cl_event*, cl_event*))         \
  X(clEnqueueCopyBuffer, cl_int,                                                                                       \
    (cl_command_queue, cl_mem, cl_mem, std::size_t, std::size_t, std::size_t, cl_uint, const cl_event*, cl_event*))    \
  X(clEnqueueFillBuffer, cl_int,                                                                                       \
    (cl_command_queue, cl_mem, const void*, std::size_t, std::size_t, std::size_t, cl_uint, const cl_event*,           \
     cl_event*))                                                                                                       \
  X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char**, const std::size_t*, cl_int*))           \
  X(clCreateProgramWithBinary, cl_program,                                                                             \
    (cl_context, cl_uint, const cl_device_id*, const std::size_t*, const unsigned char**, cl_int*, cl_int*))           \
  X(clBuildProgram, cl_int, (cl_program, cl_uint, const cl_device_id*, const char*, BuildCallback, void*))             \
  X(clGetProgramInfo, cl_int, (cl_program, cl_uint, std::size_t, void*, std::size_t*))                                 \
  X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_uint, std::size_t, void*, std::size_t*))              \
  X(clReleaseProgram, cl_int, (cl_program))                                                                            \
  X(clCreateKernel, cl_kernel, (cl_program, const char*, cl_int*))                                                     \
  X(clReleaseKernel, cl_int, (cl_kernel))                                                                              \
  X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, std::size_t, const void*))                                            \
  X(clGetKernelWorkGroupInfo, cl_int, (cl_kernel, cl_device_id, cl_uint, std::size_t, void*, std::size_t*))            \
  X(clEnqueueNDRangeKernel, cl_int,                                                                                    \
    (cl_command_queue, cl_kernel, cl_uint, const std::size_t*, const std::size_t*, const std::size_t*, cl_uint,        \
     const cl_event*, cl_event*))                                                                                      \
  X(clFlush, cl_int, (cl_command_queue))                                                                               \
  X(clFinish, cl_int, (cl_command_queue))                                                                              \
  /* The asynchronous waits' markers (opencl_queue.cpp); OpenCL 1.2. */                                                \
  X(clEnqueueMarkerWithWaitList, cl_int, (cl_command_queue, cl_uint, const cl_event*, cl_event*))                      \
  X(clWaitForEvents, cl_int, (cl_uint, const cl_event*))                                                               \
  X(clReleaseEvent, cl_int, (cl_event))                                                                                \
  /* The bounded waits (TACK_WAIT_TIMEOUT_S) poll a marker's execution status. */                                      \
  X(clGetEventInfo, cl_int, (cl_event, cl_uint, std::size_t, void*, std::size_t*))
// clang-format on

// The table: a function pointer per row, in the list's order.
struct Api {
  TACK_OPENCL_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
};

// The loaded table, or nullptr with *why (when given) naming the library or the
// missing symbol; the outcome (either) is decided once per process. The
// backend's edge (backends/opencl/opencl_driver.hpp) turns a failure into
// BackendUnavailable.
const Api* load(std::string* why);

// For tests only: the same table, writable, so a test can inject driver faults
// (tests/errors/device_lost.cpp replaces clFinish & co. with functions that
// return CL_DEVICE_NOT_AVAILABLE, as a lost device does). Every backend call
// reads the table afresh, so a replaced entry takes effect at once. The test
// must restore the entries it replaced, and swap them only while no other
// thread is inside an OpenCL call. nullptr when load() fails.
Api* api_for_tests();

// "CL_INVALID_VALUE", ..., or "error <code>" for a code this table does not name.
std::string error_name(cl_int code);

// The failure record of `call` having returned `code`, its text "<error name> (<code>)": nullopt for CL_SUCCESS.
std::optional<Failure> failure(cl_int code, const char* call);

}  // namespace tack::drivers::cl
