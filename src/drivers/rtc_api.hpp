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

struct RtcApi {
  using Result = int;  // nvrtcResult / hiprtcResult; 0 is success
  using Program = struct RtcProgram_*;
  Result (*version)(int* major, int* minor) = nullptr;
  const char* (*error_string)(Result) = nullptr;
  Result (*create_program)(Program* prog, const char* src, const char* name, int num_headers,
                           const char* const* headers, const char* const* include_names) = nullptr;
  Result (*destroy_program)(Program* prog) = nullptr;
  Result (*compile_program)(Program prog, int num_options, const char* const* options) = nullptr;
  Result (*code_size)(Program prog, std::size_t* size) = nullptr;  // nvrtcGetPTXSize / hiprtcGetCodeSize
  Result (*code)(Program prog, char* out) = nullptr;               // nvrtcGetPTX / hiprtcGetCode
  Result (*log_size)(Program prog, std::size_t* size) = nullptr;
  Result (*log)(Program prog, char* out) = nullptr;

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
