// The cpu backend's facts: LLVM-compiled kernels on a thread pool, every dtype and atomic (a host atomic
// or a compare-and-swap loop), reductions on the host. Its source is LLVM IR, which the compiler plugin
// makes on a device, so it has no generator here.
#include "backends/cpu/cpu_description.hpp"

#include "backends/cpu/cpu_backend.hpp"

namespace tack::backends::cpu {
using namespace tack::runtime;

const BackendDescription& cpu_description() {
  static const BackendDescription d{.name = "cpu",
                                    .display_name = "CPU",
                                    .options = {"num_threads"},
                                    .dtypes = every_dtype(),
                                    .atomic_dtypes = every_dtype(),
                                    .workgroups = true,
                                    .create = make_cpu_backend};
  return d;
}

}  // namespace tack::backends::cpu
