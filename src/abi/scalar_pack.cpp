// Looking up a value in the scalar pack (abi/scalar_pack.hpp).
#include "abi/scalar_pack.hpp"

namespace tack::abi {

const PackSlot* ScalarPack::find(PackSlot::Source source, int param, int dim) const {
  for (const PackArray& a : arrays)
    for (const PackSlot& s : a.slots)
      if (s.source == source && s.param == param && s.dim == dim) return &s;
  return nullptr;
}

}  // namespace tack::abi
