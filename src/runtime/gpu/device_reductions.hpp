// The device reductions of a GPU backend (reference: "Device reductions"):
// one program per operation, built on first use and kept for the backend's
// life. GpuBackend supplies the build (the backend's dialect and compiler);
// the once-only construction and the slot layout are the same everywhere.
#pragma once

#include "codegen/reduction_source.hpp"
#include "runtime/gpu/gpu_layout.hpp"

#include <array>
#include <memory>
#include <mutex>

namespace tack::runtime {

template <class Program>
class DeviceReductions {
 public:
  struct Slot {
    codegen::ArrayReduction op = codegen::ArrayReduction::Sum;
    std::unique_ptr<Program> program;  // null where the backend's build declined (the host reduces)
    std::mutex dispatch;               // held while it is dispatched: OpenCL sets arguments on the shared program
  };

  // The slot for `op`; its program is build(codegen::ArrayReduction) the first time, on whichever thread asks.
  template <class Build>
  Slot& get(ReduceOp op, Build&& build) {
    Entry& e = entries_[static_cast<std::size_t>(op)];
    std::call_once(e.built, [&] {
      e.slot.op = array_reduction(op);
      e.slot.program = build(e.slot.op);
    });
    return e.slot;
  }

 private:
  struct Entry {
    std::once_flag built;
    Slot slot;
  };
  std::array<Entry, 3> entries_;
};

}  // namespace tack::runtime
