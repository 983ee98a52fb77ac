// A shared library opened at run time, so that no vendor SDK is needed to build
// Tack: each driver or compiler table (nvrtc_api, hiprtc_api, ocloc_api, ...)
// opens its library through this and resolves its symbols by name.
#pragma once

#include "support/no_copy.hpp"

#include <initializer_list>
#include <string>

namespace tack::drivers {

class DynamicLibrary : support::NoCopy {
 public:
  DynamicLibrary() = default;
  ~DynamicLibrary();  // never closes: drivers may keep threads or atexit hooks inside the library

  // Opens the first of `names` that loads; false (with why()) when none does.
  bool open(std::initializer_list<const char*> names);
  bool is_open() const { return handle_ != nullptr; }
  const std::string& why() const { return why_; }  // the loader's messages when open() failed
  const std::string& name() const { return name_; }

  // The address of `symbol`, or nullptr (noting it in missing()).
  void* symbol(const char* symbol);
  template <class F>
  bool resolve(F*& fn, const char* symbol_name) {
    fn = reinterpret_cast<F*>(symbol(symbol_name));
    return fn != nullptr;
  }
  const std::string& missing() const { return missing_; }  // symbols not found, comma-separated

 private:
  void* handle_ = nullptr;
  std::string name_, why_, missing_;
};

}  // namespace tack::drivers
