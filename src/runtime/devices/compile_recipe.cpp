// The one emitter the runtime defines itself: the interpreter's source is its IR.
#include "runtime/devices/compile_recipe.hpp"

#include "ir/printer.hpp"

namespace tack::runtime {

abi::CSource ir_text(const abi::PackedKernel& lowered) { return {ir::to_string(lowered.kernel), lowered.kernel.name}; }

}  // namespace tack::runtime
