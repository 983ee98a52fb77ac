// dlopen/dlsym behind DynamicLibrary.
#include "drivers/dynamic_library.hpp"

#include <dlfcn.h>

namespace tack::drivers {

DynamicLibrary::~DynamicLibrary() = default;

bool DynamicLibrary::open(std::initializer_list<const char*> names) {
  why_.clear();
  for (const char* n : names) {
    handle_ = dlopen(n, RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      name_ = n;
      return true;
    }
    const char* err = dlerror();
    why_ += (why_.empty() ? "" : "; ") + std::string(err ? err : n);
  }
  return false;
}

void* DynamicLibrary::symbol(const char* s) {
  void* p = handle_ ? dlsym(handle_, s) : nullptr;
  if (!p) missing_ += (missing_.empty() ? "" : ", ") + std::string(s);
  return p;
}

}  // namespace tack::drivers
