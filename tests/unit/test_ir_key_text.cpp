// ir::to_key_text, the text kernels are hashed and keyed by: to_string's text with each expression node that has
// operands written once and "#n" where it is met again. A shared value costs its text once (a D2Q9 step's density,
// read in nine stores); the same IR gives the same text; different trees give different texts, however they share.
#include "ir/printer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace tack::ir;
using tack::DType;

Type f32() { return Type::strong(DType::F32); }

Expr load(int param, Expr index) {
  return Load::make(f32(), ArrayRef{ArrayRef::Space::Param, param}, std::move(index), 0);
}

// out[i] = v for each (i, v): stores into parameter 0 of a one-dimensional kernel over `range`.
Kernel kernel_of(std::vector<std::pair<Expr, Expr>> stores) {
  Kernel k;
  k.name = "key_text";
  k.params.resize(2);
  k.dims = {ArrayDim::make(0, ArrayDim::kSize)};
  std::vector<Stmt> body;
  for (auto& [i, v] : stores) body.push_back(Store::make(ArrayRef{ArrayRef::Space::Param, 0}, i, 0, v, {}));
  k.body = Block::make(std::move(body), {});
  return k;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(IrKeyText, ASharedValueIsWrittenOnce) {
  const Expr i = LoopIndex::make(0);
  const Expr sum = Op::make(f32(), OpCode::Add, load(1, i), load(1, i));  // two loads: equal trees, two nodes
  const Kernel k = kernel_of({{i, Op::make(f32(), OpCode::Mul, sum, sum)}, {i, sum}});
  const std::string plain = to_string(k), keyed = to_key_text(k);
  EXPECT_EQ(count(plain, "add.f32("), 3u) << plain;
  EXPECT_EQ(count(keyed, "add.f32("), 1u) << keyed;
  // Numbered in the order written: mul is #0, add #1, the loads #2 and #3.
  EXPECT_NE(keyed.find("mul.f32(add.f32(load.f32 %1[index0], load.f32 %1[index0]), #1)"), std::string::npos) << keyed;
  EXPECT_NE(keyed.find("= #1\n"), std::string::npos) << keyed;
  EXPECT_EQ(keyed.substr(0, keyed.find("parallel_for")), plain.substr(0, plain.find("parallel_for")))
      << "the header is to_string's";
  EXPECT_EQ(to_key_text(k), keyed) << "the same IR, the same text";
}

TEST(IrKeyText, DifferentTreesGiveDifferentTexts) {
  const Expr i = LoopIndex::make(0);
  const Expr a = Op::make(f32(), OpCode::Add, load(1, i), load(1, i));
  const Expr b = Op::make(f32(), OpCode::Sub, load(1, i), load(1, i));
  // The same shape of sharing, other operations: other text.
  EXPECT_NE(to_key_text(kernel_of({{i, Op::make(f32(), OpCode::Mul, a, a)}})),
            to_key_text(kernel_of({{i, Op::make(f32(), OpCode::Mul, b, b)}})));
  // mul(a, b) against mul(a, a): the second operand's back-reference differs from a tree written anew.
  EXPECT_NE(to_key_text(kernel_of({{i, Op::make(f32(), OpCode::Mul, a, b)}})),
            to_key_text(kernel_of({{i, Op::make(f32(), OpCode::Mul, a, a)}})));
}

}  // namespace
