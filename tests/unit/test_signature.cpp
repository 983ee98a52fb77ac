// A variant's signature entries: every ArgKey check_call can build decodes back
// to itself (what specialize reads), no two distinct keys share an encoding, and
// the bit layout itself is pinned, so a change to it is a deliberate one.
#include "ir/ir.hpp"
#include "runtime/kernels/arg_key.hpp"
#include "runtime/kernels/signature.hpp"

#include <gtest/gtest.h>
#include <tack/dtype.hpp>
#include <tack/kernel.hpp>

#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tack::ArgKind;
using tack::DType;
using tack::runtime::ArgKey;
using tack::runtime::ElementShape;

// A key with every field given (designated initializers that skip fields warn under -Wextra).
ArgKey key(ArgKind kind, DType dtype, int rank = 0, bool weak = false, bool hardware_texture = false,
           ElementShape element = {}) {
  ArgKey k;
  k.kind = kind;
  k.dtype = dtype;
  k.rank = rank;
  k.weak = weak;
  k.hardware_texture = hardware_texture;
  k.element = element;
  return k;
}

// Every element shape: a scalar, vectors of 2 to 4, matrices of 2 to 4 by 2 to 4.
std::vector<ElementShape> element_shapes() {
  std::vector<ElementShape> out{{0, 0}};
  for (std::uint8_t rows = 2; rows <= 4; ++rows) {
    out.push_back({rows, 0});
    for (std::uint8_t cols = 2; cols <= 4; ++cols) out.push_back({rows, cols});
  }
  return out;
}

// Every combination of every field, valid or not for the kind: decoding must not depend on the kind.
std::vector<ArgKey> every_key() {
  std::vector<ArgKey> out;
  for (ArgKind kind : {ArgKind::Array, ArgKind::Scalar, ArgKind::Texture})
    for (DType dtype : tack::kArrayDTypes)
      for (int rank = 0; rank <= 4; ++rank)
        for (bool weak : {false, true})
          for (bool hardware : {false, true})
            for (ElementShape element : element_shapes())
              out.push_back(key(kind, dtype, rank, weak, hardware, element));
  return out;
}

std::string describe(const ArgKey& k) {
  return "kind " + std::to_string(static_cast<int>(k.kind)) + ", dtype " + std::string(tack::dtype_name(k.dtype)) +
         ", rank " + std::to_string(k.rank) + ", weak " + std::to_string(k.weak) + ", hardware texture " +
         std::to_string(k.hardware_texture) + ", element " + std::to_string(k.element.rows) + "x" +
         std::to_string(k.element.cols);
}

TEST(Signature, EveryKindDtypeRankAndFlagRoundTrips) {
  for (const ArgKey& k : every_key()) {
    const ArgKey back = ArgKey::decode(k.encode());
    EXPECT_EQ(back, k) << describe(k) << " came back as " << describe(back);
  }
}

TEST(Signature, NoTwoKeysShareAnEncoding) {
  std::map<std::uint16_t, ArgKey> seen;
  for (const ArgKey& k : every_key()) {
    auto [it, fresh] = seen.emplace(k.encode(), k);
    EXPECT_TRUE(fresh) << describe(k) << " encodes as " << describe(it->second);
  }
}

TEST(Signature, FieldsThatOnceSharedTheRankNoLongerAlias) {
  // A weak scalar, a hardware texture and a rank-1 array all wrote 1 in the old "rank".
  const ArgKey weak_scalar = key(ArgKind::Scalar, DType::F64, 0, true);
  const ArgKey strong_scalar = key(ArgKind::Scalar, DType::F64);
  const ArgKey array = key(ArgKind::Array, DType::F64, 1);
  const ArgKey hardware = key(ArgKind::Texture, DType::F32, 0, false, true);
  const ArgKey software = key(ArgKind::Texture, DType::F32);
  EXPECT_NE(weak_scalar.encode(), strong_scalar.encode());
  EXPECT_NE(weak_scalar.encode(), array.encode());
  EXPECT_NE(hardware.encode(), software.encode());
  const ArgKey decoded = ArgKey::decode(weak_scalar.encode());
  EXPECT_EQ(decoded.rank, 0);
  EXPECT_TRUE(decoded.weak);
  EXPECT_FALSE(ArgKey::decode(hardware.encode()).weak);
  EXPECT_EQ(ArgKey::decode(hardware.encode()).rank, 0);
  EXPECT_TRUE(ArgKey::decode(hardware.encode()).hardware_texture);
  EXPECT_FALSE(ArgKey::decode(array.encode()).weak);
}

TEST(Signature, EachFieldKeepsItsBits) {
  EXPECT_EQ(key(ArgKind::Array, DType::Bool).encode(), 0);
  // kind in bits 0-1, dtype 2-5, rank 6-8, weak 9, hardware texture 10, element rows 11-12, cols 13-14
  EXPECT_EQ(key(ArgKind::Texture, DType::F64, 4).encode(), 2 | (10 << 2) | (4 << 6));
  EXPECT_EQ(key(ArgKind::Scalar, DType::F32, 0, true).encode(), 1 | (9 << 2) | (1 << 9));
  EXPECT_EQ(key(ArgKind::Texture, DType::F32, 0, false, true).encode(), 2 | (9 << 2) | (1 << 10));
  // A vec3 element: rows 3 (stored as 2); a mat44: rows and cols 4 (stored as 3).
  EXPECT_EQ(key(ArgKind::Array, DType::F32, 1, false, false, {3, 0}).encode(), (9 << 2) | (1 << 6) | (2 << 11));
  EXPECT_EQ(key(ArgKind::Array, DType::F32, 1, false, false, {4, 4}).encode(),
            (9 << 2) | (1 << 6) | (3 << 11) | (3 << 13));
}

// KernelArg, the parameter spec and the IR name one kind enum (the Python bindings bind it as _core.ArgKind).
static_assert(std::is_same_v<decltype(tack::KernelArg::kind), ArgKind>);
static_assert(std::is_same_v<decltype(tack::detail::ParamSpec::kind), ArgKind>);
static_assert(std::is_same_v<decltype(tack::ir::Param::kind), ArgKind>);

TEST(Signature, AnArraySpecIsAnArrayWithoutData) {
  const tack::KernelArg spec(tack::ArraySpec{DType::I16, 3});
  EXPECT_EQ(spec.kind, ArgKind::Array);
  EXPECT_TRUE(spec.spec_only);
  EXPECT_EQ(spec.array, nullptr);
  EXPECT_EQ(spec.rank, 3);
  EXPECT_FALSE(tack::KernelArg(tack::ScalarSpec{DType::F32, true}).spec_only);
}

}  // namespace
