// Reading an array access's flat index back as the subscripts lang flattened into it (ArrayBase::subscript's
// row-major order), and bounding them: for the analyses that reason about which elements work-items reach
// (analysis/row_scatter, autodiff's arrays no two work-items share).
#pragma once

#include "ir/ir.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tack::analysis {

class IndexReader {
 public:
  explicit IndexReader(const ir::Kernel& k);

  // e through LetRefs to the Lets' values and through widening integer casts.
  ir::Expr resolve(ir::Expr e) const;
  std::optional<std::int64_t> constant(const ir::Expr& e) const;
  // (d, c) where e is the launch's index d plus the constant c.
  std::optional<std::pair<int, std::int64_t>> shifted_index(const ir::Expr& e) const;
  // e as select(i == compared, wrapped, i + shift), i the launch's index `dim` and shift a constant: a periodic
  // neighbour's index.
  struct Wrap {
    int dim;
    std::int64_t shift;
    ir::Expr compared, wrapped;
  };
  std::optional<Wrap> wrapped_index(const ir::Expr& e) const;

  // The subscripts, outermost first, of an access with `subscripts` subscripts to array parameter p (0: a flat
  // index, read as r * shape(1) + c and so on where it has that form); one, the flat index, for a rank-1 array;
  // empty where the index is not the row-major flattening over p's shape (or, for a derivative kernel's gradient
  // parameter, over its primal's, which has the same shape).
  std::vector<ir::Expr> subscripts(const ir::Expr& flat, int subscripts, int p) const;

  // Where an access with `subscripts` subscripts to array parameter p reaches, as far as comparing two accesses
  // needs: the text of its outer subscripts and its innermost one as launch index `dim` plus `offset`. Two
  // accesses to p with the same row and dim have flat indices `offset` apart, whatever the subscripts' values.
  struct RowPlace {
    std::string row;
    int dim = 0;
    std::int64_t offset = 0;
  };
  std::optional<RowPlace> row_place(const ir::Expr& flat, int subscripts, int p) const;

  // Whether inner subscript s (array dimension dim >= 1 of parameter p) stays in [0, extent) for every
  // work-item: 0, a launch index shifted by c >= 0 over a launch range of the extent less at least c, or one
  // wrapped periodically over a range of the extent. A flat index in range can hold an inner subscript out of its
  // extent, which lands in another row: this is what tells it does not.
  bool within_extent(const ir::Expr& s, int p, int dim) const;

 private:
  bool is_extent(const ir::Expr& e, int p, int dim) const;

  const ir::Kernel& k_;
  std::unordered_map<int, ir::Expr> lets_;
};

}  // namespace tack::analysis
