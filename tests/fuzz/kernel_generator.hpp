// A random, well-typed Tack kernel described as a small tree (Program), made
// from a seed. The same tree can be traced into a tack::Kernel and printed as
// C++ source, so a failing case can be pasted into a test.
//
// The kernel always has the signature
//   (Array out0, Array out1, Array in0, Array in1, Array at0, Scalar s)
// and one parallel_for over out0.size(), or (a third of the seeds, where every
// backend runs workgroups) one workgroup_for over out0.size() / 256 groups with
// i = g.global_id() and one shared array sh of 256 elements. Every generated
// kernel is free of races and of results the contract (DESIGN §4) leaves to
// the backend:
//  - iteration i stores to and reads from out0/out1 only at element i;
//  - in0/in1 are read-only, read at floormod(index, size) (always in range);
//  - at0 is touched only by atomics whose results are dropped, all with one
//    commutative operation per kernel, so the final value is order-independent
//    (float adds use small integers only, so every order sums exactly);
//  - a float product appears only as the whole right side of a Var
//    declaration or assignment, so no backend may contract it into an fma;
//    except in the no-contract mode (generate(..., false)): the kernel is made
//    with KernelOptions::fp_contract off, so products stand anywhere, and four
//    arrays in ten are of a float dtype whatever the seed draws otherwise;
//  - no transcendental functions;
//  - workgroups: g.barrier() and g.reduce_* stand only where every work-item
//    of the group gets (top level, or inside if_/for_range whose condition or
//    bounds are uniform: built from constants, s, g.group_id() and the indices
//    of uniform loops; a break_/continue_ of a uniform loop has such a
//    condition too); a work-item writes only its own slot sh[g.local_id()],
//    reads other slots only between barriers where no slot is written, and
//    never inside a loop; group reductions are of integers only (wrapping
//    adds, min and max are exact in any order).
#pragma once

#include <tack/tack.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tack::fuzz {

enum class Op {
  // leaves
  Const, Index, LoopIndex, VarRef, LoadIn, LoadOut, ScalarParam,
  LocalId, GroupId, SharedLoad,  // workgroup kernels; SharedLoad ref 0: sh[local_id], ref 1: sh[floormod(kids[0], 256)]
  // unary
  Neg, BitNot, Abs, Floor, Ceil, Trunc, Round, Sqrt, Not, IsNan, Cast,
  // binary
  Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr, Min, Max, FloorDiv, FloorMod, LogAnd, LogOr,
  Eq, Ne, Lt, Le, Gt, Ge,
  // ternary
  Select,
};

struct Expr {
  Op op = Op::Const;
  DType type = DType::I32;  // the dtype of this node's result
  int ref = 0;              // array / Var / loop number
  std::uint64_t bits = 0;   // Const: the value's bits in `type`
  std::vector<Expr> kids;   // LoadIn: kids[0] is the (unreduced) index
};

enum class AtomicOp { Add, Sub, Min, Max, And, Or, Xor, Exchange, Cas };

enum class StmtKind {
  Store, Decl, Assign, If, For, While, Break, Continue, AtomicShared, AtomicPrivate,
  Barrier, SharedStore, Reduce,  // workgroup kernels; Reduce declares Var ref = g.reduce_<aop>(a), aop Add/Min/Max
};

struct Stmt {
  StmtKind kind = StmtKind::Store;
  int ref = 0;            // Store/AtomicPrivate: out array; Decl/Assign: Var; For: loop; While: counter Var
  int target = -1;        // AtomicPrivate: Var receiving the old value, or -1
  int bound = 0;          // While: most iterations
  bool uniform = false;   // If/For of a workgroup kernel: condition or bounds uniform (may hold barriers)
  AtomicOp aop = AtomicOp::Add;
  Expr a, b, c;           // operands (see the printer for each kind)
  std::vector<Stmt> body, else_body;
};

struct Program {
  std::uint64_t seed = 0;
  std::int64_t n = 16;              // elements of every array
  DType arrays[5]{};                // out0, out1, in0, in1, at0
  DType scalar = DType::I32;
  std::uint64_t scalar_bits = 0;
  AtomicOp shared_op = AtomicOp::Add;  // the one operation applied to at0
  std::vector<DType> var_types;     // by Var number
  std::vector<Stmt> body;
  bool workgroup = false;           // workgroup_for over n / 256 groups (n a multiple of 256)
  DType shared_type = DType::I32;   // sh: 256 elements, one slot per work-item
  bool fp_contract = true;          // false: made with KernelOptions::fp_contract off, products anywhere
};

inline constexpr std::int64_t kGroupSize = 256;  // work-items per group (docs/language.md, Workgroups)

// What every backend taking part accepts.
struct GeneratorLimits {
  std::vector<DType> dtypes;         // array and scalar dtypes
  std::vector<DType> atomic_dtypes;  // dtypes atomics accept
  bool workgroups = false;           // every backend runs workgroup_for
  // The differentiation mode (autodiff_check.cpp): f64 arrays and scalar, finite constants of moderate size,
  // products anywhere, and only what reverse mode differentiates: no while_, break_ or continue_, no reads of
  // out0/out1, atomics only atomic_add/atomic_sub with their old values dropped, no workgroups.
  bool differentiable = false;
};

// `fp_contract` false: the no-contract mode (see the top). A seed makes the same
// kernel in the default mode as it always has.
Program generate(std::uint64_t seed, const GeneratorLimits& limits, bool fp_contract = true);

// Traces the program: the body of the kernel lambda.
void trace(const Program& p, lang::Array out0, lang::Array out1, lang::Array in0, lang::Array in1, lang::Array at0,
           lang::Scalar s);
tack::Kernel make_kernel(const Program& p);

// The kernel as C++ source (a tack::kernel(...) expression statement).
std::string to_cpp(const Program& p);

// Whether every Var, loop index, break_ and continue_ is used where it exists
// (the shrinker's candidates must pass this before they run).
bool well_formed(const Program& p);

// Number of statements and expression nodes (the shrinker's progress measure).
std::size_t program_size(const Program& p);

// Helpers shared with the runner.
std::string value_text(DType t, std::uint64_t bits);   // a C++ expression of type T
std::string cpp_type(DType t);                          // "std::int8_t", "float", ...
std::string short_type(DType t);                        // "i8", "f32", ... (tack::lang names)

}  // namespace tack::fuzz
