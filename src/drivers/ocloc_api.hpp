// libocloc, Intel's offline OpenCL C compiler, loaded with dlopen: the two entry
// points Level Zero's compilation uses (oclocInvoke, oclocFreeOutput), with
// private declarations instead of ocloc_api.h.
#pragma once

#include "drivers/entry_points.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tack::drivers {

// The two entry points, as libocloc exports them: X(name, result, parameters).
// clang-format off
#define TACK_OCLOC_ENTRY_POINTS(X)                                                                                     \
  X(oclocInvoke, int,                                                                                                  \
    (unsigned num_args, const char* argv[], std::uint32_t num_sources, const std::uint8_t** sources,                   \
     const std::uint64_t* source_lengths, const char** source_names, std::uint32_t num_headers,                        \
     const std::uint8_t** headers, const std::uint64_t* header_lengths, const char** header_names,                     \
     std::uint32_t* num_outputs, std::uint8_t*** outputs, std::uint64_t** output_lengths, char*** output_names))       \
  X(oclocFreeOutput, int,                                                                                              \
    (std::uint32_t* num_outputs, std::uint8_t*** outputs, std::uint64_t** output_lengths, char*** output_names))
// clang-format on

struct OclocApi {
  TACK_OCLOC_ENTRY_POINTS(TACK_DRIVER_ENTRY_MEMBER)
  std::string library;
};

// The process's libocloc, loaded on first use; nullptr with *why when it cannot be.
const OclocApi* ocloc(std::string* why);

// Runs `ocloc <args>` in process on one in-memory source named `source_name`
// (passed null-terminated: ocloc reads in-memory sources as C strings). Returns
// ocloc's exit code; the outputs by file name (the build log is "stdout.log").
int ocloc_run(const OclocApi& api, const std::vector<std::string>& args, const std::string& source,
              const std::string& source_name, std::map<std::string, std::string>* outputs);

}  // namespace tack::drivers
