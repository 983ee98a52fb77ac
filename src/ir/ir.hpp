// Tack IR: immutable expression and statement nodes, and the kernel that holds them.
//
// Rules every pass and backend relies on (the verifier checks them):
// - Nodes never change once made; passes build new nodes and share unchanged ones.
// - Expressions are pure. A Load appears only as the whole value of a Let, so a
//   load happens exactly where the trace put it, never moved or repeated by a
//   pass (the trace itself orders the reads between two writes canonically:
//   lang/canonical_order.hpp).
// - A Var is read through VarRef; the front end snapshots a Var into a Let when a
//   C++ Value is taken from it, so a VarRef elsewhere reads the current value
//   (while_ conditions rely on this).
// - Let ids and Var ids are unique within a kernel and index Kernel::lets / vars.
// - After type inference every expression has a Strong type, the operands of an
//   Op have one dtype (shift counts included), conditions are Bool, indices I64.
#pragma once

#include <tack/arg_kind.hpp>
#include <tack/dtype.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tack::ir {

enum class ExprKind : std::uint8_t {
#define TACK_EXPR(Name) Name,
#include "nodes.def"
};
enum class StmtKind : std::uint8_t {
#define TACK_STMT(Name) Name,
#include "nodes.def"
};
enum class OpCode : std::uint8_t {
#define TACK_OP(Name, arity, spelling, category) Name,
#include "ops.def"
};
enum class OpCategory : std::uint8_t { Arith, Bits, Shift, Compare, Logic, Signed, Float, Classify, Quotient };

int op_arity(OpCode op);
const char* op_name(OpCode op);
OpCategory op_category(OpCode op);
// exp, log, sin, pow, ...: what each backend computes with its math library, within a few ulp (docs/semantics.md).
bool is_transcendental(OpCode op);

// Unknown: not yet inferred. Weak: a C++ literal (or an expression of literals)
// that adapts to the other operand; dtype is the literal's own C++ type.
struct Type {
  enum class Kind : std::uint8_t { Unknown, Weak, Strong };
  Kind kind = Kind::Unknown;
  DType dtype = DType::I32;

  static Type unknown() { return {}; }
  static Type weak(DType t) { return {Kind::Weak, t}; }
  static Type strong(DType t) { return {Kind::Strong, t}; }
  bool is_strong() const { return kind == Kind::Strong; }
  bool is_weak() const { return kind == Kind::Weak; }
  bool is_unknown() const { return kind == Kind::Unknown; }
  bool operator==(const Type&) const = default;
};

struct SourceLoc {
  const char* file = nullptr;
  int line = 0;
  std::string str() const;  // "file.cpp:12", or "" when unknown
};

// Where a Load, Store or Atomic goes: a kernel parameter, a workgroup shared array,
// or a work-item's own local array (Kernel::locals; never an Atomic's target).
struct ArrayRef {
  enum class Space : std::uint8_t { Param, Shared, Local };
  Space space = Space::Param;
  int index = 0;
  bool operator==(const ArrayRef&) const = default;
};

enum class GroupField : std::uint8_t { LocalId, GroupId, GroupSize, NumGroups };
enum class AtomicOp : std::uint8_t { Add, Sub, Min, Max, And, Or, Xor, Exchange, Cas };
enum class ReduceOp : std::uint8_t { Add, Min, Max };
const char* atomic_name(AtomicOp op);
const char* reduce_name(ReduceOp op);

struct ExprNode;
struct StmtNode;

// A shared handle to an immutable expression node.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}
  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Expr& o) const { return node_ == o.node_; }
  template <class T>
  const T* as() const;
  const std::shared_ptr<const ExprNode>& ptr() const { return node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }
  template <class T>
  const T* as() const;

 private:
  std::shared_ptr<const StmtNode> node_;
};

struct ExprNode {
  const ExprKind kind;
  const Type type;
  virtual ~ExprNode() = default;

 protected:
  ExprNode(ExprKind k, Type t) : kind(k), type(t) {}
};

struct StmtNode {
  const StmtKind kind;
  const SourceLoc loc;
  virtual ~StmtNode() = default;

 protected:
  StmtNode(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

// ---- expressions ---------------------------------------------------------

// A literal. Integers are held in `i` (sign- or zero-extended from their width,
// u64 as its bit pattern), floats in `f`; bool as i = 0 or 1.
struct Const : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Const;
  std::int64_t i = 0;
  double f = 0;
  Const(Type t, std::int64_t iv, double fv) : ExprNode(kKind, t), i(iv), f(fv) {}
  static Expr make_int(Type t, std::int64_t v);
  static Expr make_float(Type t, double v);
  static Expr make_bool(bool v);
  std::uint64_t u() const { return static_cast<std::uint64_t>(i); }
};

struct ScalarParam : ExprNode {
  static constexpr ExprKind kKind = ExprKind::ScalarParam;
  int param;
  ScalarParam(Type t, int p) : ExprNode(kKind, t), param(p) {}
  static Expr make(Type t, int param);
};

// An array parameter's extent: dim >= 0 is shape(dim), kSize is its element count. I64.
// Traced IR may hold dim -rank .. -1, counted from the end (shape(-1) is the last);
// infer_types resolves it, so typed IR never does.
struct ArrayDim : ExprNode {
  static constexpr ExprKind kKind = ExprKind::ArrayDim;
  static constexpr int kSize = std::numeric_limits<int>::min();
  int param;
  int dim;
  ArrayDim(int p, int d) : ExprNode(kKind, Type::strong(DType::I64)), param(p), dim(d) {}
  static Expr make(int param, int dim);
};

// The index of the parallel loop along dimension `dim` (0 is the outermost). I64.
struct LoopIndex : ExprNode {
  static constexpr ExprKind kKind = ExprKind::LoopIndex;
  int dim;
  explicit LoopIndex(int d) : ExprNode(kKind, Type::strong(DType::I64)), dim(d) {}
  static Expr make(int dim);
};

// A work-item's position in a workgroup launch. I64.
struct GroupValue : ExprNode {
  static constexpr ExprKind kKind = ExprKind::GroupValue;
  GroupField field;
  explicit GroupValue(GroupField f) : ExprNode(kKind, Type::strong(DType::I64)), field(f) {}
  static Expr make(GroupField f);
};

struct LetRef : ExprNode {
  static constexpr ExprKind kKind = ExprKind::LetRef;
  int id;
  LetRef(Type t, int i) : ExprNode(kKind, t), id(i) {}
  static Expr make(Type t, int id);
};

struct VarRef : ExprNode {
  static constexpr ExprKind kKind = ExprKind::VarRef;
  int id;
  VarRef(Type t, int i) : ExprNode(kKind, t), id(i) {}
  static Expr make(Type t, int id);
};

// `subscripts` is how many indices the program wrote: 0 for a flat a[i], n for
// a(i, j, ...), whose flattening is already in `index`; n must equal the rank.
struct Load : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Load;
  ArrayRef array;
  Expr index;
  int subscripts;
  Load(Type t, ArrayRef a, Expr idx, int subs)
      : ExprNode(kKind, t), array(a), index(std::move(idx)), subscripts(subs) {}
  static Expr make(Type t, ArrayRef a, Expr index, int subscripts);
};

struct Op : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Op;
  OpCode op;
  std::array<Expr, 3> args;
  Op(Type t, OpCode o, std::array<Expr, 3> a) : ExprNode(kKind, t), op(o), args(std::move(a)) {}
  int arity() const { return op_arity(op); }
  static Expr make(Type t, OpCode op, Expr a, Expr b = {}, Expr c = {});
};

// Both branches are evaluated; there is nothing to short-circuit in pure expressions.
struct Select : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Select;
  Expr cond, if_true, if_false;
  Select(Type t, Expr c, Expr a, Expr b)
      : ExprNode(kKind, t), cond(std::move(c)), if_true(std::move(a)), if_false(std::move(b)) {}
  static Expr make(Type t, Expr c, Expr a, Expr b);
};

// Conversion to type.dtype with docs/semantics.md's rules (saturating float-to-int, ...).
struct Cast : ExprNode {
  static constexpr ExprKind kKind = ExprKind::Cast;
  Expr value;
  Cast(Type t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  static Expr make(Type t, Expr v);
};

// Trilinear sample of a Texture3D parameter at normalized coordinates. F32.
struct TexSample : ExprNode {
  static constexpr ExprKind kKind = ExprKind::TexSample;
  int param;
  Expr u, v, w;
  TexSample(Type t, int p, Expr a, Expr b, Expr c)
      : ExprNode(kKind, t), param(p), u(std::move(a)), v(std::move(b)), w(std::move(c)) {}
  static Expr make(Type t, int param, Expr u, Expr v, Expr w);
};

// ---- statements ----------------------------------------------------------

struct Block : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Block;
  std::vector<Stmt> stmts;
  Block(SourceLoc l, std::vector<Stmt> s) : StmtNode(kKind, l), stmts(std::move(s)) {}
  static Stmt make(std::vector<Stmt> stmts, SourceLoc loc = {});
};

// Binds an immutable value; inside a loop it is bound afresh each iteration.
struct Let : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Let;
  int id;
  Expr value;
  Let(SourceLoc l, int i, Expr v) : StmtNode(kKind, l), id(i), value(std::move(v)) {}
  static Stmt make(int id, Expr value, SourceLoc loc = {});
};

struct DeclareVar : StmtNode {
  static constexpr StmtKind kKind = StmtKind::DeclareVar;
  int id;
  Expr init;
  DeclareVar(SourceLoc l, int i, Expr v) : StmtNode(kKind, l), id(i), init(std::move(v)) {}
  static Stmt make(int id, Expr init, SourceLoc loc = {});
};

struct Assign : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Assign;
  int id;
  Expr value;
  Assign(SourceLoc l, int i, Expr v) : StmtNode(kKind, l), id(i), value(std::move(v)) {}
  static Stmt make(int id, Expr value, SourceLoc loc = {});
};

struct Store : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  ArrayRef array;
  Expr index;
  int subscripts;
  Expr value;
  Store(SourceLoc l, ArrayRef a, Expr i, int s, Expr v)
      : StmtNode(kKind, l), array(a), index(std::move(i)), subscripts(s), value(std::move(v)) {}
  static Stmt make(ArrayRef a, Expr index, int subscripts, Expr value, SourceLoc loc = {});
};

// Read-modify-write of one element; the old value is bound to Let `result`.
// `compare` is used by Cas only (store value where the element equals compare).
struct Atomic : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Atomic;
  AtomicOp op;
  ArrayRef array;
  Expr index;
  int subscripts;
  Expr value;
  Expr compare;
  int result;
  Atomic(SourceLoc l, AtomicOp o, ArrayRef a, Expr i, int s, Expr v, Expr c, int r)
      : StmtNode(kKind, l),
        op(o),
        array(a),
        index(std::move(i)),
        subscripts(s),
        value(std::move(v)),
        compare(std::move(c)),
        result(r) {}
  static Stmt make(AtomicOp op, ArrayRef a, Expr index, int subscripts, Expr value, Expr compare, int result,
                   SourceLoc loc = {});
};

struct If : StmtNode {
  static constexpr StmtKind kKind = StmtKind::If;
  Expr cond;
  Stmt then_case;
  Stmt else_case;  // may be empty
  If(SourceLoc l, Expr c, Stmt t, Stmt e)
      : StmtNode(kKind, l), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case, SourceLoc loc = {});
};

// for (index = lo; index < hi; ++index); `index` is a Let id of type I64, bound each iteration.
struct For : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  int index;
  Expr lo, hi;
  Stmt body;
  For(SourceLoc l, int i, Expr a, Expr b, Stmt s)
      : StmtNode(kKind, l), index(i), lo(std::move(a)), hi(std::move(b)), body(std::move(s)) {}
  static Stmt make(int index, Expr lo, Expr hi, Stmt body, SourceLoc loc = {});
};

// Repeats its body until a Break; while_ becomes Loop { if (!cond) break; body }.
struct Loop : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Loop;
  Stmt body;
  Loop(SourceLoc l, Stmt b) : StmtNode(kKind, l), body(std::move(b)) {}
  static Stmt make(Stmt body, SourceLoc loc = {});
};

struct Break : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Break;
  explicit Break(SourceLoc l) : StmtNode(kKind, l) {}
  static Stmt make(SourceLoc loc = {});
};

struct Continue : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Continue;
  explicit Continue(SourceLoc l) : StmtNode(kKind, l) {}
  static Stmt make(SourceLoc loc = {});
};

// Every work-item of the group reaches it before any goes on; shared memory
// written before it is visible after it.
struct Barrier : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Barrier;
  explicit Barrier(SourceLoc l) : StmtNode(kKind, l) {}
  static Stmt make(SourceLoc loc = {});
};

// A reduction over the work-items of a group (a collective: all must reach it);
// every work-item gets the result in Let `result`.
struct GroupReduce : StmtNode {
  static constexpr StmtKind kKind = StmtKind::GroupReduce;
  ReduceOp op;
  Expr value;
  int result;
  GroupReduce(SourceLoc l, ReduceOp o, Expr v, int r) : StmtNode(kKind, l), op(o), value(std::move(v)), result(r) {}
  static Stmt make(ReduceOp op, Expr value, int result, SourceLoc loc = {});
};

// Writes a line to stderr (tack::lang::print): `format`'s `{}` are replaced by
// `args` in order (`{{` and `}}` stand for braces). passes::lower_prints turns it
// into atomics and stores into hidden arrays before optimization; no backend sees it.
struct Print : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Print;
  std::string format;
  std::vector<Expr> args;
  Print(SourceLoc l, std::string f, std::vector<Expr> a)
      : StmtNode(kKind, l), format(std::move(f)), args(std::move(a)) {}
  static Stmt make(std::string format, std::vector<Expr> args, SourceLoc loc = {});
};

// The number of `{}` in a print format, or -1 when a lone `{` or `}` makes it malformed.
int print_placeholders(const std::string& format);

template <class T>
const T* Expr::as() const {
  return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
}
template <class T>
const T* Stmt::as() const {
  return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
}

// ---- the kernel ----------------------------------------------------------

// The kind shared with KernelArg and the parameter spec; a Texture is the language's Texture3D.
using ParamKind = tack::ArgKind;
// The parameter type's name in the language and in printed IR: Array, Scalar, Texture3D.
const char* param_kind_name(ParamKind k);

struct Param {
  ParamKind kind = ParamKind::Array;
  std::optional<DType> fixed_dtype;  // declared with ArrayOf<T> / ScalarOf<T>
  DType dtype = DType::F32;          // after specialization (Texture3D: always F32)
  int rank = -1;                     // arrays, after specialization
  int required_rank = -1;            // arrays: the rank the traced code relies on (lang::detail::require_rank)
  SourceLoc required_rank_loc;       // the line that relies on it
  // Arrays of vectors or matrices (lang::detail::require_element_shape): the trailing dimensions each call's
  // array must have, rows (2 to 4) then cols (2 to 4, or 0 for a vector); 0 and 0 for scalar elements.
  int element_rows = 0;
  int element_cols = 0;
  SourceLoc element_loc;          // the line that declared it
  bool scalar_pack = false;       // added by passes::pack_scalars: holds the host's scalar values
  bool hardware_texture = false;  // Texture3D: sampled by the device's texture unit, else in software
  // A derivative kernel's gradient (adjoint) or tangent parameter: the primal array parameter it belongs to
  // (autodiff/, docs/autodiff.md). It has that parameter's kind, dtype, rank and shape; -1 for the others.
  int gradient_of = -1;
};

struct SharedArray {
  DType dtype;
  std::int64_t count;
};

// A per-work-item array (lang::local_array): each work-item has its own `count`
// elements. Its storage lives as long as the work-item; the trace zeroes it with
// ordinary stores where the program declares it, so no backend zeroes it again.
struct LocalArray {
  DType dtype;
  std::int64_t count;
};

enum class LaunchKind : std::uint8_t { Parallel, Workgroup };

// What a traced kernel stands for: its own body, or a derivative of it that the pipeline makes from the typed
// body (autodiff::adjoint, autodiff::jvp) before optimizing; the derivative's parameters are the primal's, then
// one per primal array parameter (Param::gradient_of).
enum class Derivative : std::uint8_t { None, Adjoint, Tangent };

// A whole kernel: one parallel_for (or workgroup_for) over `dims`.
// Parallel: dims are the N-D range, iterated as one flat range of their product.
// Workgroup: dims[0] is the number of groups; each has GroupSize work-items.
struct Kernel {
  std::string name;
  std::vector<Param> params;
  LaunchKind launch = LaunchKind::Parallel;
  std::vector<Expr> dims;
  std::vector<SharedArray> shared;
  std::vector<LocalArray> locals;
  std::vector<Type> lets;  // indexed by Let id; Strong after inference
  std::vector<Type> vars;  // indexed by Var id; Strong after inference
  Stmt body;
  SourceLoc loc;
  bool typed = false;
  // False: no float product fuses into a sum on any backend (KernelOptions::fp_contract);
  // the printer writes it, so the IR's hash and text (every cache key) tell the two apart.
  bool fp_contract = true;
  // Set by passes::lower_workgroups: the Let ids of the indices of the loops over a
  // group's work-items (its regions), which the CPU runs as SIMD gangs.
  std::vector<int> work_item_loops;
  // What the author called each Var (`acc.x` for a vec3 Var `acc`), by id; empty where unnamed, and may be
  // shorter than `vars`. Debug information for inspect: not in the kernel's text, so not in any cache key.
  std::vector<std::string> var_names;
  Derivative derivative = Derivative::None;
};

}  // namespace tack::ir
