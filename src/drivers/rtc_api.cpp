// Loading NVRTC and hipRTC, and one checked compile through either.
#include "drivers/rtc_api.hpp"

#include "drivers/dynamic_library.hpp"

#include <mutex>

namespace tack::drivers {
namespace {

struct Loaded {
  RtcApi api;
  DynamicLibrary lib;
  std::string failure;
};

// Each row resolved under NVRTC's name or hipRTC's.
#define TACK_RTC_ENTRY_RESOLVE(member, nvrtc_name, hiprtc_name, result, parameters) \
  lib.resolve(api.member, nvrtc_names ? #nvrtc_name : #hiprtc_name);
void resolve_entry_points(DynamicLibrary& lib, RtcApi& api, bool nvrtc_names) {
  TACK_RTC_ENTRY_POINTS(TACK_RTC_ENTRY_RESOLVE)
}
#undef TACK_RTC_ENTRY_RESOLVE

void load(Loaded& l, const char* compiler, std::initializer_list<const char*> files, bool nvrtc_names) {
  l.api.compiler = compiler;
  if (!l.lib.open(files)) {
    l.failure = std::string(compiler) + " could not be loaded (" + l.lib.why() + ")";
    return;
  }
  resolve_entry_points(l.lib, l.api, nvrtc_names);
  if (!l.lib.missing().empty()) {
    l.failure = l.lib.name() + " lacks " + l.lib.missing();
    return;
  }
  l.api.library = l.lib.name();
}

const RtcApi* result(const Loaded& l, std::string* why) {
  if (l.failure.empty()) return &l.api;
  if (why) *why = l.failure;
  return nullptr;
}

// Records the first failed call in `out`; true while none has failed.
bool ok(const RtcApi& a, RtcApi::Result r, const char* call, RtcOutput& out) {
  if (r != 0 && !out.failure) out.failure = Failure{call, r, a.error_string(r)};
  return !out.failure;
}

std::string program_log(const RtcApi& a, RtcApi::Program p) {
  std::size_t size = 0;
  if (a.log_size(p, &size) != 0 || size <= 1) return "";
  std::string text(size, '\0');
  if (a.log(p, text.data()) != 0) return "";
  text.resize(size - 1);
  return text;
}

}  // namespace

const RtcApi* nvrtc(std::string* why) {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] { load(l, "NVRTC", {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, true); });
  return result(l, why);
}

const RtcApi* hiprtc(std::string* why) {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    load(l, "hipRTC",
         {"libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.5", "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"},
         false);
  });
  return result(l, why);
}

RtcOutput rtc_compile(const RtcApi& a, const std::string& source, const std::string& name,
                      const std::vector<const char*>& options) {
  RtcOutput out;
  RtcApi::Program prog = nullptr;
  if (!ok(a, a.create_program(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr), "CreateProgram", out))
    return out;
  struct Destroy {
    const RtcApi& a;
    RtcApi::Program& p;
    ~Destroy() { a.destroy_program(&p); }
  } destroy{a, prog};
  if (!ok(a, a.compile_program(prog, static_cast<int>(options.size()), options.data()), "CompileProgram", out)) {
    out.rejected = true;
    out.log = program_log(a, prog);
    return out;
  }
  std::size_t size = 0;
  if (!ok(a, a.code_size(prog, &size), "GetCodeSize", out)) return out;
  out.code.resize(size);
  if (!ok(a, a.code(prog, out.code.data()), "GetCode", out)) out.code.clear();
  return out;
}

}  // namespace tack::drivers
