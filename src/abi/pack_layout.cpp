// Slot counts per parameter kind (see the header).
#include "abi/pack_layout.hpp"

namespace tack::abi {

PackLayout pack_layout(const ir::Kernel& typed) {
  PackLayout p;
  for (const ir::Param& param : typed.params) {
    p.first_slot.push_back(p.slots);
    switch (param.kind) {
      case ir::ParamKind::Array: p.slots += 2 + param.rank; break;
      case ir::ParamKind::Scalar: p.slots += 1; break;
      case ir::ParamKind::Texture: p.slots += 4; break;
    }
  }
  return p;
}

}  // namespace tack::abi
