// The run-time compilers NVRTC (CUDA) and hipRTC (HIP), loaded with dlopen. Their
// C APIs have the same shape (hipRTC copies NVRTC's), so one table serves both,
// with private declarations instead of the SDKs' nvrtc.h and hiprtc.h.
#pragma once

#include "drivers/failure.hpp"

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tack::drivers {

// The entry points, X(member, NVRTC's name, hipRTC's name, result, parameters):
// the same call under each compiler's prefix, except that the code is PTX in one
// and a code object in the other. Result and Program are RtcApi's.
// clang-format off
#define TACK_RTC_ENTRY_POINTS(X)                                                                                       \
  X(version, nvrtcVersion, hiprtcVersion, Result, (int* major, int* minor))                                            \
  X(error_string, nvrtcGetErrorString, hiprtcGetErrorString, const char*, (Result))                                    \
  X(create_program, nvrtcCreateProgram, hiprtcCreateProgram, Result,                                                   \
    (Program* prog, const char* src, const char* name, int num_headers, const char* const* headers,                    \
     const char* const* include_names))                                                                                \
  X(destroy_program, nvrtcDestroyProgram, hiprtcDestroyProgram, Result, (Program* prog))                               \
  X(compile_program, nvrtcCompileProgram, hiprtcCompileProgram, Result,                                                \
    (Program prog, int num_options, const char* const* options))                                                       \
  X(code_size, nvrtcGetPTXSize, hiprtcGetCodeSize, Result, (Program prog, std::size_t* size))                          \
  X(code, nvrtcGetPTX, hiprtcGetCode, Result, (Program prog, char* out))                                               \
  X(log_size, nvrtcGetProgramLogSize, hiprtcGetProgramLogSize, Result, (Program prog, std::size_t* size))              \
  X(log, nvrtcGetProgramLog, hiprtcGetProgramLog, Result, (Program prog, char* out))
// clang-format on

#define TACK_RTC_ENTRY_MEMBER(member, nvrtc_name, hiprtc_name, result, parameters) \
  result(*member) parameters = nullptr;

struct RtcApi {
  using Result = int;  // nvrtcResult / hiprtcResult; 0 is success
  using Program = struct RtcProgram_*;
  TACK_RTC_ENTRY_POINTS(TACK_RTC_ENTRY_MEMBER)

  std::string compiler;  // "NVRTC" or "hipRTC"
  std::string library;   // the file loaded
};

// The process's NVRTC (libnvrtc.so.13, .12) and hipRTC (libhiprtc.so, or inside
// libamdhip64.so as in ROCm 5), loaded on first use; nullptr with *why when not.
const RtcApi* nvrtc(std::string* why);
const RtcApi* hiprtc(std::string* why);

// What a compile made: the compiler's output (PTX text or a code object), or
// the failed call; `rejected` when that call was the compile itself (the
// source's fault), with the compiler's log. The backend raises the Tack error
// (runtime::compiled_or_raise).
struct RtcOutput {
  std::vector<char> code;
  std::optional<Failure> failure;  // text: the compiler's error string
  bool rejected = false;
  std::string log;
};

// Compiles `source` as program `name` with `options`.
RtcOutput rtc_compile(const RtcApi& api, const std::string& source, const std::string& name,
                      const std::vector<const char*>& options);

}  // namespace tack::drivers
