// record_index: `size * x + offset` recognized (record_index.hpp).
#include "analysis/record_index.hpp"

namespace tack::analysis {

std::optional<RecordIndex> record_index(const ir::Expr& index,
                                        const std::function<const ir::Expr&(const ir::Expr&)>& resolve) {
  using namespace ir;
  auto constant = [&](const Expr& e) -> std::optional<std::int64_t> {
    if (const auto* c = resolve(e).as<Const>()) return c->i;
    return std::nullopt;
  };
  const Expr* scaled = &resolve(index);
  std::int64_t offset = 0;
  if (const auto* add = scaled->as<Op>(); add && add->op == OpCode::Add) {
    const std::size_t c = constant(add->args[0]) ? 0 : 1;
    const std::optional<std::int64_t> k = constant(add->args[c]);
    if (!k) return std::nullopt;
    offset = *k;
    scaled = &resolve(add->args[1 - c]);
  }
  const auto* mul = scaled->as<Op>();
  if (!mul || mul->op != OpCode::Mul) return std::nullopt;
  const std::size_t c = constant(mul->args[0]) ? 0 : 1;
  const std::optional<std::int64_t> size = constant(mul->args[c]);
  if (!size || *size < 2 || *size > kMaxRecordSize) return std::nullopt;
  return RecordIndex{&mul->args[1 - c], *size, offset};
}

}  // namespace tack::analysis
