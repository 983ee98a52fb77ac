// The trace's canonical order (src/lang/canonical_order.hpp): the same
// expressions evaluated left to right and right to left give one IR, and no
// read moves across a write, an atomic, a barrier or a Var assignment.
//
// Each pair of kernels below fixes an evaluation order by reading into named
// Values first, statement by statement: one pair as Clang (and Python) evaluate
// an expression, left to right, the other as GCC does, right to left.
#include "ir/printer.hpp"
#include "lang/canonical_order.hpp"

#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CanonicalOrder, LeftToRightAndRightToLeftGiveOneIr) {
  // out[i] = a * x[i] + y[i]
  auto in_source_order = tack::kernel("saxpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) {
      Value xi = x[i];
      Value yi = y[i];
      y[i] = a * xi + yi;
    });
  });
  auto right_to_left = tack::kernel("saxpy", [](Array y, Array x, Scalar a) {
    parallel_for(y.size(), [&](Index i) {
      Value yi = y[i];
      Value xi = x[i];
      y[i] = a * xi + yi;
    });
  });
  auto one_expression = tack::kernel(
      "saxpy", [](Array y, Array x, Scalar a) { parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; }); });
  EXPECT_EQ(in_source_order.ir(), right_to_left.ir());
  EXPECT_EQ(in_source_order.ir(), one_expression.ir());
  // The canonical order is GCC's (right to left): y[i] is t0.
  EXPECT_TRUE(contains(one_expression.ir(), "let t0 = load %0[index0]\n  let t1 = load %1[index0]\n"))
      << one_expression.ir();
}

TEST(CanonicalOrder, NestedReadsVarsAndCallsGiveOneIr) {
  // out[i] = select(w[i] > s, data[idx[i]], min(v, w[i] * 2)), s a Var read and v a Var
  auto left_to_right = tack::kernel("mix", [](Array out, Array data, ArrayOf<int> idx, Array w) {
    parallel_for(out.size(), [&](Index i) {
      Var s = 1.0f;
      Var v = 2.0f;
      Value w1 = w[i];
      Value sv = s;
      Value k = idx[i];
      Value d = data[k];
      Value vv = v;
      Value w2 = w[i];
      out[i] = select(w1 > sv, d, min(vv, w2 * 2));
    });
  });
  auto right_to_left = tack::kernel("mix", [](Array out, Array data, ArrayOf<int> idx, Array w) {
    parallel_for(out.size(), [&](Index i) {
      Var s = 1.0f;
      Var v = 2.0f;
      Value w2 = w[i];
      Value vv = v;
      Value k = idx[i];
      Value d = data[k];
      Value sv = s;
      Value w1 = w[i];
      out[i] = select(w1 > sv, d, min(vv, w2 * 2));
    });
  });
  EXPECT_EQ(left_to_right.ir(), right_to_left.ir());
  // The index is read before the element it selects.
  const std::string ir = left_to_right.ir();
  EXPECT_LT(ir.find("load %2[index0]"), ir.find("load %1[t")) << ir;
}

TEST(CanonicalOrder, AtomicArgumentsAndCompoundAssignmentsGiveOneIr) {
  // atomic_cas(out, a[i], b[i], c[i]); out[a[i]] += b[i]
  auto left_to_right = tack::kernel("atomics", [](ArrayOf<int> out, ArrayOf<int> a, ArrayOf<int> b, ArrayOf<int> c) {
    parallel_for(a.size(), [&](Index i) {
      Value ai = a[i], bi = b[i], ci = c[i];
      atomic_cas(out, ai, bi, ci);
      Value aj = a[i];
      Value bj = b[i];
      out[aj] += bj;
    });
  });
  auto right_to_left = tack::kernel("atomics", [](ArrayOf<int> out, ArrayOf<int> a, ArrayOf<int> b, ArrayOf<int> c) {
    parallel_for(a.size(), [&](Index i) {
      Value ci = c[i], bi = b[i], ai = a[i];
      atomic_cas(out, ai, bi, ci);
      Value bj = b[i];
      Value aj = a[i];
      out[aj] += bj;
    });
  });
  EXPECT_EQ(left_to_right.ir(), right_to_left.ir());
}

TEST(CanonicalOrder, ReadsDoNotCrossWrites) {
  auto k = tack::kernel("writes", [](Array out, Array a) {
    workgroup_for(out.size(), [&](Group g) {
      SharedArray tile = g.shared<float>(4);
      Var v = 0.0f;
      Value before_store = a[g.local_id()];
      Value v_before = v;
      a[g.local_id()] = 1.0f;
      Value after_store = a[g.local_id()];
      v = 5.0f;
      Value v_after = v;
      tile[0] = after_store;
      g.barrier();
      Value after_barrier = tile[1];
      Value old = atomic_add(out, 0, 1.0f);
      Value after_atomic = out[0];
      // Used in the opposite order of the reads: without the writes between
      // them they would be reordered.
      out[g.global_id()] = after_atomic + old + after_barrier + v_after + after_store + v_before + before_store;
    });
  });
  const std::string ir = k.ir();
  auto at = [&](const std::string& part) {
    std::size_t p = ir.find(part);
    EXPECT_NE(p, std::string::npos) << part << " in\n" << ir;
    return p;
  };
  // The statements in program order, each read on its side of every write.
  std::size_t first_read = at("= load %1[local_id]");
  std::size_t store = at("store %1[local_id] = ");
  std::size_t second_read = ir.find("= load %1[local_id]", first_read + 1);
  std::size_t assign = at("v0 = weak.f32(5)");
  std::size_t barrier = at("barrier");
  std::size_t shared_read = at("= load shared0[");
  std::size_t atomic = at("atomic_add %0[");
  std::size_t last_read = at("= load %0[");
  EXPECT_LT(first_read, store);
  EXPECT_LT(at("= v0\n"), store);
  EXPECT_LT(store, second_read);
  EXPECT_LT(second_read, assign);
  EXPECT_LT(assign, ir.find("= v0\n", assign));
  EXPECT_LT(ir.find("= v0\n", assign), barrier);
  EXPECT_LT(barrier, shared_read);
  EXPECT_LT(shared_read, atomic);
  EXPECT_LT(atomic, last_read);
}

TEST(CanonicalOrder, ReadsInsideBodiesAndUnusedReadsGiveOneIr) {
  auto left_to_right = tack::kernel("bodies", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) {
      Value x = a[i], y = b[i];
      Value unused1 = a[i + 1], unused2 = b[i + 1];
      if_(x > 0, [&] {
        Value p = a[i + 2], q = b[i + 2];
        out[i] = p - q + y;
      });
    });
  });
  auto right_to_left = tack::kernel("bodies", [](Array out, Array a, Array b) {
    parallel_for(out.size(), [&](Index i) {
      Value unused2 = b[i + 1], y = b[i];
      Value x = a[i], unused1 = a[i + 1];
      if_(x > 0, [&] {
        Value q = b[i + 2], p = a[i + 2];
        out[i] = p - q + y;
      });
    });
  });
  EXPECT_EQ(left_to_right.ir(), right_to_left.ir());
}

// The step itself, on IR built by hand: the order the Lets come in does not matter,
// and every Let is numbered where it is defined.
TEST(CanonicalOrder, RenumbersLetsInDefinitionOrder) {
  using namespace tack::ir;
  auto load = [](int array) {
    return Load::make(Type::unknown(), ArrayRef{ArrayRef::Space::Param, array}, LoopIndex::make(0), 0);
  };
  auto ref = [](int id) { return LetRef::make(Type::unknown(), id); };
  auto traced = [&](bool left_first) {
    Kernel k;
    k.name = "k";
    k.dims = {ArrayDim::make(0, ArrayDim::kSize)};
    k.lets.assign(3, Type::unknown());
    // The for loop's index was given id 0 first; the body's lets come after it.
    const int a = left_first ? 1 : 2, b = left_first ? 2 : 1;
    Stmt body = Block::make(
        {Let::make(1, load(left_first ? 1 : 2)), Let::make(2, load(left_first ? 2 : 1)),
         Store::make({ArrayRef::Space::Param, 0}, ref(0), 0, Op::make(Type::unknown(), OpCode::Sub, ref(a), ref(b)))});
    k.body = Block::make({For::make(0, LoopIndex::make(0), ArrayDim::make(0, ArrayDim::kSize), body)});
    tack::lang::detail::canonicalize_order(k);
    return to_string(k);
  };
  const std::string ir = traced(true);
  EXPECT_EQ(ir, traced(false));
  EXPECT_TRUE(contains(ir, "let t1 = load %2[index0]\n    let t2 = load %1[index0]\n")) << ir;
  EXPECT_TRUE(contains(ir, "= sub(t2, t1)")) << ir;
}

}  // namespace
