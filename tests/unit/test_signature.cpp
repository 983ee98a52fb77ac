// A variant's signature entries: what check_call encodes, specialize decodes
// back, for every parameter kind, dtype and rank; and the bit layout itself is
// pinned, so a change to it is a deliberate one.
#include "ir/ir.hpp"
#include "runtime/kernels/signature.hpp"

#include <gtest/gtest.h>
#include <tack/dtype.hpp>

namespace {

using tack::DType;
using tack::ir::ParamKind;
using tack::runtime::Signature;

TEST(Signature, EveryKindDtypeAndRankRoundTrips) {
  for (ParamKind kind : {ParamKind::Array, ParamKind::Scalar, ParamKind::Texture3D})
    for (DType dtype : tack::kArrayDTypes)
      for (int rank = 0; rank <= 4; ++rank) {
        const int k = static_cast<int>(kind), d = static_cast<int>(dtype);
        const Signature::Item item = Signature::decode(Signature::encode(k, d, rank));
        EXPECT_EQ(item.kind, k) << "dtype " << d << ", rank " << rank;
        EXPECT_EQ(item.dtype, d) << "kind " << k << ", rank " << rank;
        EXPECT_EQ(item.rank, rank) << "kind " << k << ", dtype " << d;
      }
}

TEST(Signature, KindDtypeAndRankKeepTheirBits) {
  EXPECT_EQ(Signature::encode(0, 0, 0), 0);
  // kind in bits 0-1, dtype in bits 2-5, rank from bit 6
  EXPECT_EQ(Signature::encode(static_cast<int>(ParamKind::Texture3D), static_cast<int>(DType::F64), 4),
            2 | (10 << 2) | (4 << 6));
  EXPECT_EQ(Signature::encode(static_cast<int>(ParamKind::Scalar), static_cast<int>(DType::F32), 1),
            1 | (9 << 2) | (1 << 6));
}

}  // namespace
