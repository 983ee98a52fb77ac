// What this build is and what each device is, for tack.info() and python -m tack (tack/_info.py).
#include "bindings.hpp"

#include <tack/about.hpp>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace tack::python {

void bind_about(nb::module_& m) {
  m.def(
      "_library_info",
      [] {
        const LibraryInfo info = library_info();
        nb::dict d;
        d["version"] = info.version;
        d["llvm_version"] = info.llvm_version;
        d["disk_cache"] = info.disk_cache;
        d["cache_directory"] = info.cache_directory;
        d["cache_max_bytes"] = info.cache_max_bytes;
        return d;
      },
      "The library's version, its LLVM's and the disk cache's settings, as a dict (tack.info() reads it).");
  m.def(
      "_about", [](const Device& device) { return about(device); }, nb::arg("device"),
      "What a device is, as (name, value) pairs: its name, its driver's version, ... (tack.info() reads it).");
}

}  // namespace tack::python
