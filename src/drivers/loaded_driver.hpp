// A driver's symbol table as the process loads it once: the table, the library
// it came from and, when the driver cannot be used, why. Made at the first ask
// and never destroyed: buffers, streams and the driver's own threads may call in
// during exit, after static destructors have run.
#pragma once

#include "drivers/dynamic_library.hpp"

#include <string>

namespace tack::drivers {

template <class Api>
struct LoadedDriver {
  Api api{};
  DynamicLibrary lib;   // never closed: drivers keep threads and atexit hooks inside it
  std::string failure;  // empty when the driver is usable

  // The table, or nullptr with the failure in *why (when why is given).
  const Api* usable(std::string* why) const {
    if (failure.empty()) return &api;
    if (why) *why = failure;
    return nullptr;
  }
};

// The one LoadedDriver that fill() fills, made (thread-safely) at the first call.
template <class Api, void (*fill)(LoadedDriver<Api>&)>
LoadedDriver<Api>& load_once() {
  static LoadedDriver<Api>& loaded = *[] {
    auto* l = new LoadedDriver<Api>;
    fill(*l);
    return l;
  }();
  return loaded;
}

}  // namespace tack::drivers
