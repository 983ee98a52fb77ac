// The interp backend's facts: the reference interpreter runs every dtype, atomic and workgroup;
// reductions run on the host. Its source is the typed IR itself, so it has no generator here.
#include "backends/interp/interp_description.hpp"

#include "backends/interp/interp_backend.hpp"

namespace tack::backends::interp {
using namespace tack::runtime;

const BackendDescription& interp_description() {
  static const BackendDescription d{.name = "interp",
                                    .display_name = "Interpreter",
                                    .options = {"lanes"},
                                    .dtypes = every_dtype(),
                                    .atomic_dtypes = every_dtype(),
                                    .workgroups = true,
                                    .create = make_interp_backend};
  return d;
}

}  // namespace tack::backends::interp
