// The shared C-family emitter: kernel structure, statements and expressions.
//
// Shape of the generated code:
// - A parallel kernel computes its 64-bit flat index, returns past `__n__`, reads
//   the scalar packs, then decomposes the index into the N-D loop indices.
// - Every Let and Var is declared at the top of the kernel and assigned where it
//   is bound, so C scopes never disagree with the IR's.
// - Expressions are pure: within one statement a node used more than once is
//   computed once into a temporary; everything else is one C expression, so the
//   contraction rules of DESIGN §4 follow from C's: a float product may fuse
//   only when its one use is an add or subtract of the same statement;
//   any other product goes through unfused_mul() for dialects (CUDA) whose
//   compiler also fuses across statements.
// - Integer arithmetic that may wrap is done in unsigned types; division,
//   modulo, min, max, abs and float-to-int conversions are helpers with
//   DESIGN §4's edge cases spelled out.
#include "codegen/c_family.hpp"

#include "codegen/identifiers.hpp"
#include "codegen/statement_uses.hpp"
#include "ir/check.hpp"
#include "ir/scalar_ops.hpp"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tack::codegen {

namespace {
bool is_int(DType t) { return t != DType::Bool && !is_float(t); }
int bits_of_dtype(DType t) { return dtype_bits(t); }
}  // namespace

// ---- services ---------------------------------------------------------------

std::string CFamilyCodeGen::suffix(DType t) { return std::string(dtype_name(t)); }

std::string CFamilyCodeGen::cl_type_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "char";
    case DType::U8: return "uchar";
    case DType::I16: return "short";
    case DType::U16: return "ushort";
    case DType::I32: return "int";
    case DType::U32: return "uint";
    case DType::I64: return "long";
    case DType::U64: return "ulong";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  TACK_UNREACHABLE("unknown dtype");
}

DType CFamilyCodeGen::unsigned_bits(DType t) const { return dtype_bits(t) == 64 ? DType::U64 : DType::U32; }

std::string CFamilyCodeGen::wide_unsigned(DType t) const { return type_name(unsigned_bits(t)); }

std::string CFamilyCodeGen::literal_int(DType t, std::int64_t v) const {
  switch (t) {
    case DType::Bool: return v ? "true" : "false";
    case DType::I64:
      if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807" + i64_suffix() + " - 1)";
      return "(" + std::to_string(v) + i64_suffix() + ")";
    case DType::U64: return "(" + std::to_string(static_cast<std::uint64_t>(v)) + u64_suffix() + ")";
    case DType::I32:
      if (v == std::numeric_limits<std::int32_t>::min()) return "(-2147483647 - 1)";
      return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
    case DType::U32: return std::to_string(static_cast<std::uint32_t>(v)) + "u";
    default: return "((" + type_name(t) + ")" + (v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v)) + ")";
  }
}

std::string CFamilyCodeGen::literal(DType t, std::uint64_t bits) const {
  if (!is_float(t)) {
    std::int64_t v = ir::bits_to_int(t, bits);
    return literal_int(t, v);
  }
  double d = ir::bits_to_double(t, bits);
  if (std::isnan(d) || std::isinf(d)) return float_from_bits(t, bits);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", d);  // exact: a hexadecimal float literal
  std::string s = buf;
  if (t == DType::F32) s += "f";
  return d < 0 || std::signbit(d) ? "(" + s + ")" : s;
}

std::string CFamilyCodeGen::unfused_mul(DType, const std::string& a, const std::string& b) const {
  return "(" + a + " * " + b + ")";
}

std::string CFamilyCodeGen::min_max_helper(ir::OpCode op, DType t) {
  bool mn = op == ir::OpCode::Min;
  std::string name = std::string("tack_") + (mn ? "min_" : "max_") + suffix(t);
  return helper(name, [&] {
    std::string T = type_name(t);
    std::string head = helper_qualifier() + " " + T + " " + name + "(" + T + " a, " + T + " b) {\n";
    // scalar_ops: min is `b < a ? b : a`, max `a < b ? b : a`; for floats a NaN yields the other operand.
    std::string pick = mn ? "b < a ? b : a" : "a < b ? b : a";
    if (!is_float(t)) return head + "  return " + pick + ";\n}\n";
    return head + "  if (isnan(a)) return b;\n  if (isnan(b)) return a;\n  return " + pick + ";\n}\n";
  });
}

std::string CFamilyCodeGen::cas_loop_helper(const std::string& base_name, DType t, const std::string& combine) {
  const std::string name = base_name + (atomic_on_shared_ ? "_shared" : "");
  return helper(name, [&] {
    DType ut = unsigned_bits(t);
    std::string T = type_name(t), U = type_name(ut);
    std::string from = is_float(t) ? float_of_bits(t, "old") : "(" + T + ")old";
    std::string to = is_float(t) ? bits_of(t, "next") : "(" + U + ")next";
    return helper_qualifier() + " " + T + " " + name + "(" + global_pointer(t, false) + " p, " + T + " v) {\n" +
           "  " + atomic_bits_pointer(ut) + " w = (" + atomic_bits_pointer(ut) + ")p;\n" + "  " + U +
           " old = " + atomic_load_bits(ut, "w") + ";\n" + "  for (;;) {\n" + "    " + T + " cur = " + from +
           ";\n" + "    " + T + " next = " + combine + ";\n" + "    " + U + " desired = " + to + ";\n" + "    " +
           cas_step(ut, "w", "old", "desired", "cur") + "\n" + "  }\n}\n";
  });
}

// 8- and 16-bit atomics: no GPU language has them, so the containing 32-bit word is updated with a
// compare-and-swap loop that changes only the element's bits (GPUs are little-endian). Buffers and shared
// arrays are allocated in whole words, so the word never reaches past the allocation.
std::string CFamilyCodeGen::subword_atomic(ir::AtomicOp op, DType t, const std::string& base, const std::string& index,
                                           const std::string& v, const std::string& c) {
  const std::string name =
      std::string("tack_atomic_") + ir::atomic_name(op) + "_" + suffix(t) + (atomic_on_shared_ ? "_shared" : "");
  const bool is_cas = op == ir::AtomicOp::Cas;
  helper(name, [&] {
    const std::string T = type_name(t), U = type_name(DType::U32), I64 = type_name(DType::I64);
    const std::string UT = type_name(is_signed_int(t) ? (dtype_bits(t) == 8 ? DType::U8 : DType::U16) : t);
    const std::string W = atomic_bits_pointer(DType::U32);
    const std::string bytes_ptr = global_pointer(DType::U8, false);
    std::string combine;
    switch (op) {
      case ir::AtomicOp::Add: combine = "(" + T + ")((" + U + ")cur + (" + U + ")v)"; break;
      case ir::AtomicOp::Sub: combine = "(" + T + ")((" + U + ")cur - (" + U + ")v)"; break;
      case ir::AtomicOp::And: combine = "(" + T + ")(cur & v)"; break;
      case ir::AtomicOp::Or: combine = "(" + T + ")(cur | v)"; break;
      case ir::AtomicOp::Xor: combine = "(" + T + ")(cur ^ v)"; break;
      case ir::AtomicOp::Min: combine = min_max_helper(ir::OpCode::Min, t) + "(cur, v)"; break;
      case ir::AtomicOp::Max: combine = min_max_helper(ir::OpCode::Max, t) + "(cur, v)"; break;
      case ir::AtomicOp::Exchange:
      case ir::AtomicOp::Cas: combine = "v"; break;
    }
    const int size = static_cast<int>(dtype_size(t));
    std::string text = helper_qualifier() + " " + T + " " + name + "(" + global_pointer(t, false) + " base, " + I64 +
                       " index, " + T + " v" + (is_cas ? ", " + T + " expected" : "") + ") {\n";
    text += "  const " + I64 + " byte = index * " + std::to_string(size) + ";\n";
    text += "  " + W + " w = (" + W + ")((" + bytes_ptr + ")base + (byte - (byte & 3)));\n";
    text += "  const " + U + " shift = (" + U + ")(byte & 3) * 8u;\n";
    text += "  const " + U + " mask = " + (size == 1 ? "0xFFu" : "0xFFFFu") + " << shift;\n";
    text += "  " + U + " old = " + atomic_load_bits(DType::U32, "w") + ";\n";
    text += "  for (;;) {\n";
    text += "    const " + T + " cur = (" + T + ")(" + UT + ")((old & mask) >> shift);\n";
    if (is_cas) text += "    if (cur != expected) return cur;\n";
    text += "    const " + T + " next = " + combine + ";\n";
    text += "    const " + U + " desired = (old & ~mask) | (((" + U + ")(" + UT + ")next << shift) & mask);\n";
    text += "    " + cas_step(DType::U32, "w", "old", "desired", "cur") + "\n  }\n}\n";
    return text;
  });
  return name + "(" + base + ", " + index + ", " + v + (is_cas ? ", " + c : "") + ")";
}

std::string CFamilyCodeGen::float_to_int(DType from, DType to, const std::string& x) {
  std::string name = "tack_" + suffix(from) + "_to_" + suffix(to);
  helper(name, [&] {
    std::string F = type_name(from), T = type_name(to);
    // The bounds are powers of two (or 0), exact in both float types; trunc first, then compare.
    double lo = is_signed_int(to) ? -std::ldexp(1.0, dtype_bits(to) - 1) : 0.0;
    double hi = is_signed_int(to) ? std::ldexp(1.0, dtype_bits(to) - 1) : std::ldexp(1.0, dtype_bits(to));
    std::uint64_t lo_bits =
        from == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(lo)) : std::bit_cast<std::uint64_t>(lo);
    std::uint64_t hi_bits =
        from == DType::F32 ? std::bit_cast<std::uint32_t>(static_cast<float>(hi)) : std::bit_cast<std::uint64_t>(hi);
    std::int64_t tmin = is_signed_int(to) ? ir::bits_to_int(to, std::uint64_t{1} << (dtype_bits(to) - 1)) : 0;
    std::uint64_t tmax_bits = is_signed_int(to) ? (std::uint64_t{1} << (dtype_bits(to) - 1)) - 1
                                                : (dtype_bits(to) == 64 ? ~std::uint64_t{0}
                                                                        : (std::uint64_t{1} << dtype_bits(to)) - 1);
    return helper_qualifier() + " " + T + " " + name + "(" + F + " x) {\n" + "  if (isnan(x)) return " +
           literal_int(to, 0) + ";\n" + "  " + F + " t = " + math("trunc", from) + "(x);\n" + "  if (t >= " +
           literal(from, hi_bits) + ") return " + literal(to, tmax_bits) + ";\n" + "  if (t < " +
           literal(from, lo_bits) + ") return " + literal_int(to, tmin) + ";\n" + "  return (" + T + ")t;\n}\n";
  });
  return name + "(" + x + ")";
}

// ---- kernel -----------------------------------------------------------------

CSource CFamilyCodeGen::generate(const passes::PackedKernel& packed) {
  packed_ = &packed;
  k_ = &packed.kernel;
  const ir::Kernel& k = *k_;
  TACK_CHECK(k.typed);
  helpers_.clear();
  helper_names_.clear();
  body_.clear();
  reduce_scratch_.clear();
  temp_count_ = 0;
  indent_ = 1;
  const bool workgroup = k.launch == ir::LaunchKind::Workgroup;
  const std::string I64 = type_name(DType::I64);

  std::vector<std::string> decls, names;
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ir::Param& p = k.params[i];
    if (p.kind == ir::ParamKind::Scalar) continue;
    std::string name = (p.kind == ir::ParamKind::Texture3D ? "t" : p.scalar_pack ? "pack_" : "a") +
                       (p.scalar_pack ? suffix(p.dtype) : std::to_string(i));
    if (p.kind == ir::ParamKind::Texture3D && p.hardware_texture) {
      // The runtime chooses hardware only on backends whose generator has it (texture_in_hardware).
      TACK_CHECK(hardware_textures());
      decls.push_back(texture_object_type() + " " + name);
    } else {
      decls.push_back(global_pointer(p.dtype, p.scalar_pack || p.kind == ir::ParamKind::Texture3D) + " " + name);
    }
    names.push_back(name);
  }

  // Declarations of every Let and Var, then the launch prologue.
  std::string decl_block;
  auto declare = [&](const std::vector<ir::Type>& types, const char* prefix) {
    for (std::size_t i = 0; i < types.size(); ++i)
      decl_block += "  " + type_name(types[i].dtype) + " " + prefix + std::to_string(i) + ";\n";
  };
  declare(k.lets, "l");
  declare(k.vars, "v");

  const auto* top = k.body.as<ir::Block>();
  TACK_CHECK(top && static_cast<int>(top->stmts.size()) >= packed.leading_lets);
  for (int i = 0; i < packed.leading_lets; ++i) stmt(top->stmts[static_cast<std::size_t>(i)]);

  std::string prologue;
  if (!workgroup) {
    prologue += "  const " + I64 + " __i__ = " + global_index() + ";\n  if (__i__ >= " + param_ref("__n__") + ") return;\n";
    const std::size_t n = k.dims.size();
    loop_index_.assign(n, "");
    if (n == 1) {
      loop_index_[0] = "__i__";
    } else {
      // Row-major decomposition; every extent is positive, since the launch would be empty otherwise.
      line(I64 + " __r__ = __i__;");
      for (std::size_t d = n; d-- > 0;) {
        std::string idx = "__idx" + std::to_string(d) + "__";
        loop_index_[d] = idx;
        if (d == 0) {
          line("const " + I64 + " " + idx + " = __r__;");
        } else {
          begin_statement({&k.dims[d]});
          std::string e = converted(k.dims[d], DType::I64);
          flush_temps();
          line("const " + I64 + " " + idx + " = __r__ % " + e + ";");
          line("__r__ /= " + e + ";");
        }
      }
    }
  } else {
    prologue += "  const " + I64 + " __lid__ = " + local_id() + ";\n  const " + I64 + " __gid__ = " + group_id() + ";\n";
    // Shared arrays start zeroed (as in the interpreter); GPU local memory starts undefined.
    for (std::size_t i = 0; i < k.shared.size(); ++i)
      prologue += "  for (" + I64 + " __z__ = __lid__; __z__ < " + std::to_string(k.shared[i].count) +
                  "; __z__ += " + std::to_string(kGpuGroupSize) + ") sh" + std::to_string(i) + "[__z__] = 0;\n";
    if (!k.shared.empty()) prologue += "  " + barrier() + "\n";
  }
  for (std::size_t i = static_cast<std::size_t>(packed.leading_lets); i < top->stmts.size(); ++i) stmt(top->stmts[i]);

  std::string shared;
  for (std::size_t i = 0; i < k.shared.size(); ++i) {
    // Whole 32-bit words, so that an 8- or 16-bit atomic's containing word stays inside the array.
    const std::int64_t per_word = 4 / std::min<std::int64_t>(4, static_cast<std::int64_t>(dtype_size(k.shared[i].dtype)));
    const std::int64_t count = (k.shared[i].count + per_word - 1) / per_word * per_word;
    shared += "  " + shared_decl(k.shared[i].dtype, "sh" + std::to_string(i), count) + "\n";
  }
  for (const auto& [dt, name] : reduce_scratch_)
    shared += "  " + shared_decl(static_cast<DType>(dt), name, kGpuGroupSize) + "\n";

  CSource out;
  out.entry = kernel_entry_name(k.name);
  std::string text = prelude(k);
  for (const std::string& h : helpers_) text += "\n" + h;
  text += "\n" + kernel_open(out.entry, decls, names, workgroup) + shared + prologue;
  // The prologue's return must precede the declarations' first use only; C allows either order.
  text += decl_block + body_ + "}\n";
  out.text = std::move(text);
  return out;
}

// ---- statements ---------------------------------------------------------------

namespace {
// `e` in one pair of parentheses: "(a == b)" stays as it is (clang warns on "((a == b))"), "a" becomes "(a)".
std::string parenthesized(const std::string& e) {
  if (e.size() >= 2 && e.front() == '(' && e.back() == ')') {
    int depth = 0;
    std::size_t i = 0;
    for (; i < e.size(); ++i) {
      depth += e[i] == '(' ? 1 : e[i] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    if (i == e.size() - 1) return e;
  }
  return "(" + e + ")";
}
}  // namespace

void CFamilyCodeGen::line(const std::string& text) {
  body_.append(static_cast<std::size_t>(indent_) * 2, ' ');
  body_ += text;
  body_ += '\n';
}

void CFamilyCodeGen::flush_temps() {
  for (const std::string& t : pending_) line(t);
  pending_.clear();
}

void CFamilyCodeGen::begin_statement(std::initializer_list<const ir::Expr*> roots) {
  StatementUses su = statement_uses(roots);
  uses_ = std::move(su.uses);
  contract_ = std::move(su.fusible);
  temps_.clear();
  pending_.clear();
  unsigned_form_.clear();
}

std::string CFamilyCodeGen::array_name(const ir::ArrayRef& a) const {
  if (a.space == ir::ArrayRef::Space::Shared) return "sh" + std::to_string(a.index);
  const ir::Param& p = k_->params[static_cast<std::size_t>(a.index)];
  TACK_CHECK(p.kind == ir::ParamKind::Array);
  return param_ref(p.scalar_pack ? "pack_" + suffix(p.dtype) : "a" + std::to_string(a.index));
}

DType CFamilyCodeGen::array_dtype(const ir::ArrayRef& a) const {
  if (a.space == ir::ArrayRef::Space::Shared) return k_->shared[static_cast<std::size_t>(a.index)].dtype;
  return k_->params[static_cast<std::size_t>(a.index)].dtype;
}

std::string CFamilyCodeGen::element(const ir::ArrayRef& a, const ir::Expr& index) {
  return array_name(a) + "[" + converted(index, DType::I64) + "]";
}

void CFamilyCodeGen::stmt(const ir::Stmt& s) {
  if (!s) return;
  auto assign = [&](const std::string& target, const ir::Expr& value, DType t) {
    begin_statement({&value});
    std::string v = converted(value, t);
    flush_temps();
    line(target + " = " + v + ";");
  };
  switch (s->kind) {
    case ir::StmtKind::Block:
      for (const ir::Stmt& c : s.as<ir::Block>()->stmts) stmt(c);
      return;
    case ir::StmtKind::Let: {
      const auto* n = s.as<ir::Let>();
      return assign(let_name(n->id), n->value, k_->lets[static_cast<std::size_t>(n->id)].dtype);
    }
    case ir::StmtKind::DeclareVar: {
      const auto* n = s.as<ir::DeclareVar>();
      return assign(var_name(n->id), n->init, k_->vars[static_cast<std::size_t>(n->id)].dtype);
    }
    case ir::StmtKind::Assign: {
      const auto* n = s.as<ir::Assign>();
      return assign(var_name(n->id), n->value, k_->vars[static_cast<std::size_t>(n->id)].dtype);
    }
    case ir::StmtKind::Store: {
      const auto* n = s.as<ir::Store>();
      begin_statement({&n->index, &n->value});
      std::string target = element(n->array, n->index);
      std::string v = converted(n->value, array_dtype(n->array));
      flush_temps();
      line(target + " = " + v + ";");
      return;
    }
    case ir::StmtKind::Atomic: return emit_atomic(s.as<ir::Atomic>());
    case ir::StmtKind::If: {
      const auto* n = s.as<ir::If>();
      begin_statement({&n->cond});
      std::string c = converted(n->cond, DType::Bool);
      flush_temps();
      line("if " + parenthesized(c) + " {");
      ++indent_;
      stmt(n->then_case);
      --indent_;
      if (n->else_case) {
        line("} else {");
        ++indent_;
        stmt(n->else_case);
        --indent_;
      }
      line("}");
      return;
    }
    case ir::StmtKind::For: {
      const auto* n = s.as<ir::For>();
      begin_statement({&n->lo, &n->hi});
      std::string lo = converted(n->lo, DType::I64);
      std::string hi = converted(n->hi, DType::I64);
      flush_temps();
      std::string end = "__end" + std::to_string(temp_count_++) + "__";
      std::string i = let_name(n->index);
      line("{");
      ++indent_;
      line("const " + type_name(DType::I64) + " " + end + " = " + hi + ";");
      line("for (" + i + " = " + lo + "; " + i + " < " + end + "; ++" + i + ") {");
      ++indent_;
      stmt(n->body);
      --indent_;
      line("}");
      --indent_;
      line("}");
      return;
    }
    case ir::StmtKind::Loop:
      line("for (;;) {");
      ++indent_;
      stmt(s.as<ir::Loop>()->body);
      --indent_;
      line("}");
      return;
    case ir::StmtKind::Break: line("break;"); return;
    case ir::StmtKind::Continue: line("continue;"); return;
    case ir::StmtKind::Barrier: line(barrier()); return;
    case ir::StmtKind::GroupReduce: return emit_group_reduce(s.as<ir::GroupReduce>());
    case ir::StmtKind::Print: TACK_UNREACHABLE("c_family: prints must be lowered by passes::lower_prints");
  }
  TACK_UNREACHABLE("c_family: unknown statement kind");
}

std::string CFamilyCodeGen::reduce_scratch(DType t) {
  auto [it, fresh] = reduce_scratch_.emplace(static_cast<int>(t), "");
  if (fresh) it->second = "tack_reduce_" + suffix(t);
  return it->second;
}

// A tree over the group's 256 work-items in its shared scratch; every work-item reads the result.
void CFamilyCodeGen::emit_group_reduce(const ir::GroupReduce* n) {
  DType t = n->value->type.dtype;
  TACK_CHECK(t != DType::Bool);
  std::string scratch = reduce_scratch(t);
  begin_statement({&n->value});
  std::string v = expr(n->value);
  flush_temps();
  line(scratch + "[__lid__] = " + v + ";");
  line(barrier());
  std::string a = scratch + "[__lid__]", b = scratch + "[__lid__ + __s__]";
  std::string combine;
  switch (n->op) {
    case ir::ReduceOp::Add:
      combine = is_float(t) ? "(" + a + " + " + b + ")"
                            : "(" + type_name(t) + ")((" + wide_unsigned(t) + ")" + a + " + (" + wide_unsigned(t) +
                                  ")" + b + ")";
      break;
    case ir::ReduceOp::Min: combine = min_max_helper(ir::OpCode::Min, t) + "(" + a + ", " + b + ")"; break;
    case ir::ReduceOp::Max: combine = min_max_helper(ir::OpCode::Max, t) + "(" + a + ", " + b + ")"; break;
  }
  line("for (int __s__ = " + std::to_string(kGpuGroupSize / 2) + "; __s__ > 0; __s__ >>= 1) {");
  ++indent_;
  line("if (__lid__ < __s__) " + a + " = " + combine + ";");
  line(barrier());
  --indent_;
  line("}");
  line(let_name(n->result) + " = " + cast(t, k_->lets[static_cast<std::size_t>(n->result)].dtype, scratch + "[0]") +
       ";");
  line(barrier());  // the scratch is reused by the next reduction
}

void CFamilyCodeGen::emit_atomic(const ir::Atomic* n) {
  begin_statement({&n->index, &n->value, &n->compare});
  DType t = array_dtype(n->array);
  TACK_CHECK(t != DType::Bool);
  std::string base = array_name(n->array);
  std::string index = converted(n->index, DType::I64);
  std::string v = converted(n->value, t);
  std::string c = n->compare ? converted(n->compare, t) : std::string();
  flush_temps();
  atomic_on_shared_ = n->array.space == ir::ArrayRef::Space::Shared;
  std::string old = dtype_bits(t) < 32 ? subword_atomic(n->op, t, base, index, v, c)
                                       : atomic(n->op, t, "(" + base + " + " + index + ")", v, c);
  atomic_on_shared_ = false;
  line(let_name(n->result) + " = " + cast(t, k_->lets[static_cast<std::size_t>(n->result)].dtype, old) + ";");
}

// ---- expressions --------------------------------------------------------------

std::string CFamilyCodeGen::converted(const ir::Expr& e, DType to) { return cast(e->type.dtype, to, expr(e)); }

std::string CFamilyCodeGen::expr(const ir::Expr& e) {
  TACK_CHECK(e && e->type.is_strong());
  auto it = temps_.find(e.get());
  if (it != temps_.end()) return it->second;
  std::string s = compute(e);
  bool trivial = e->kind == ir::ExprKind::Const || e->kind == ir::ExprKind::LetRef ||
                 e->kind == ir::ExprKind::VarRef || e->kind == ir::ExprKind::LoopIndex ||
                 e->kind == ir::ExprKind::GroupValue;
  if (!trivial && uses_[e.get()] > 1) {
    std::string name = "__t" + std::to_string(temp_count_++) + "__";
    pending_.push_back("const " + type_name(e->type.dtype) + " " + name + " = " + s + ";");
    temps_.emplace(e.get(), name);
    return name;
  }
  return s;
}

std::string CFamilyCodeGen::cast(DType from, DType to, const std::string& x) {
  if (from == to) return x;
  if (to == DType::Bool) return "(" + x + " != " + literal_int(from == DType::Bool ? DType::I32 : from, 0) + ")";
  if (from == DType::Bool) return "((" + type_name(to) + ")(" + x + " ? 1 : 0))";
  if (is_float(from) && is_int(to)) return float_to_int(from, to, x);
  if (from == DType::F64 && to == DType::F32) {
    std::string name = helper("tack_f64_to_f32", [&] {
      // C leaves a double beyond float's range undefined; DESIGN §4 rounds it: from FLT_MAX + half an ulp up
      // to infinity, just above FLT_MAX down to it.
      std::string inf = float_from_bits(DType::F32, 0x7f800000u);
      return helper_qualifier() + " float tack_f64_to_f32(double d) {\n" + "  double m = " +
             math("fabs", DType::F64) + "(d);\n" + "  if (m >= 0x1.ffffffp+127) return d > 0 ? " + inf + " : -" + inf +
             ";\n" + "  if (m > 0x1.fffffep+127) return d > 0 ? 0x1.fffffep+127f : -0x1.fffffep+127f;\n" +
             "  return (float)d;\n}\n";
    });
    return name + "(" + x + ")";
  }
  return "((" + type_name(to) + ")(" + x + "))";
}

std::string CFamilyCodeGen::texture_sample_helper() {
  return helper("tack_texture_sample", [&] {
    // As the interpreter: clamp, scale to texel space, lerp with one rounding per operation (products
    // never fuse: each is unfused_mul).
    std::string P = global_pointer(DType::F32, true);
    std::string q = helper_qualifier();
    const std::string I64 = type_name(DType::I64);
    std::string mul = unfused_mul(DType::F32, "f", "b");
    std::string mul_a = unfused_mul(DType::F32, "(1.0f - f)", "a");
    std::string text;
    text += q + " float tack_lerp(float a, float b, float f) {\n  const float wa = " + mul_a + ";\n  const float wb = " +
            mul + ";\n  return wa + wb;\n}\n";
    text += q + " float tack_texel_x(float u, " + I64 + " n) {\n";
    text += "  const float c = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;\n";  // NaN fails u > 0 and becomes 0
    text += "  return " + unfused_mul(DType::F32, "c", "(float)(n - 1)") + ";\n}\n";
    text += q + " float tack_texture_sample(" + P + " t, " + I64 + " w, " + I64 + " h, " + I64 + " d, float u, float v, " +
            "float s) {\n";
    auto axis = [&](const char* c, const char* n, const char* coord) {
      std::string x = std::string(c);
      return "  const float " + x + "x = tack_texel_x(" + coord + ", " + n + ");\n  const float " + x + "f0 = " +
             math("floor", DType::F32) + "(" + x + "x);\n  const " + I64 + " " + x + "0 = (" + I64 + ")" + x +
             "f0 < " + n + " - 1 ? (" + I64 + ")" + x + "f0 : " + n + " - 1;\n  const " + I64 + " " + x + "1 = " + x +
             "0 + 1 < " + n + " - 1 ? " + x + "0 + 1 : " + n + " - 1;\n  const float f" + x + " = " + x + "x - " +
             x + "f0;\n";
    };
    text += axis("x", "w", "u") + axis("y", "h", "v") + axis("z", "d", "s");
    text += "  #define TACK_TEXEL(x, y, z) t[((z) * h + (y)) * w + (x)]\n";
    text += "  const float p0 = tack_lerp(tack_lerp(TACK_TEXEL(x0, y0, z0), TACK_TEXEL(x1, y0, z0), fx),\n"
            "                             tack_lerp(TACK_TEXEL(x0, y1, z0), TACK_TEXEL(x1, y1, z0), fx), fy);\n";
    text += "  const float p1 = tack_lerp(tack_lerp(TACK_TEXEL(x0, y0, z1), TACK_TEXEL(x1, y0, z1), fx),\n"
            "                             tack_lerp(TACK_TEXEL(x0, y1, z1), TACK_TEXEL(x1, y1, z1), fx), fy);\n";
    text += "  #undef TACK_TEXEL\n  return tack_lerp(p0, p1, fz);\n}\n";
    return text;
  });
}

std::string CFamilyCodeGen::hardware_texture_sample_helper() {
  return helper("tack_texture_sample_hw", [&] {
    // The software path's coordinates put texel i of n at u = i / (n - 1); the hardware's centres are at
    // (i + 0.5) / n (reference: Textures). Clamped first as in software, so NaN reads texel 0 and no
    // coordinate leaves [0, 1]; the filtering itself is the texture unit's (9-bit fixed-point weights).
    const std::string q = helper_qualifier();
    const std::string I64 = type_name(DType::I64);
    std::string text;
    text += q + " float tack_texel_centre(float u, " + I64 + " n) {\n";
    text += "  const float c = u > 0.0f ? (u < 1.0f ? u : 1.0f) : 0.0f;\n";  // NaN fails u > 0 and becomes 0
    text += "  return (c * (float)(n - 1) + 0.5f) / (float)n;\n}\n";
    // u runs along the width (the fastest-varying index of the array), v the height, s the depth.
    text += q + " float tack_texture_sample_hw(" + texture_object_type() + " t, " + I64 + " w, " + I64 + " h, " +
            I64 + " d, float u, float v, float s) {\n";
    text += "  return " +
            texture_fetch("t", "tack_texel_centre(u, w)", "tack_texel_centre(v, h)", "tack_texel_centre(s, d)") +
            ";\n}\n";
    return text;
  });
}

std::string CFamilyCodeGen::compute(const ir::Expr& e) {
  switch (e->kind) {
    case ir::ExprKind::Const: return literal(e->type.dtype, ir::const_bits(e.as<ir::Const>()));
    case ir::ExprKind::ScalarParam:
    case ir::ExprKind::ArrayDim: TACK_UNREACHABLE("c_family: host scalars must be packed first (pack_scalars)");
    case ir::ExprKind::LoopIndex: {
      int d = e.as<ir::LoopIndex>()->dim;
      TACK_CHECK(d >= 0 && static_cast<std::size_t>(d) < loop_index_.size() && !loop_index_[d].empty());
      return loop_index_[static_cast<std::size_t>(d)];
    }
    case ir::ExprKind::GroupValue:
      switch (e.as<ir::GroupValue>()->field) {
        case ir::GroupField::LocalId: return "__lid__";
        case ir::GroupField::GroupId: return "__gid__";
        case ir::GroupField::GroupSize: return literal_int(DType::I64, kGpuGroupSize);
        case ir::GroupField::NumGroups: return param_ref("__n__");
      }
      TACK_UNREACHABLE("c_family: unknown group field");
    case ir::ExprKind::LetRef: return let_name(e.as<ir::LetRef>()->id);
    case ir::ExprKind::VarRef: return var_name(e.as<ir::VarRef>()->id);
    case ir::ExprKind::Load: {
      const auto* n = e.as<ir::Load>();
      return cast(array_dtype(n->array), e->type.dtype, element(n->array, n->index));
    }
    case ir::ExprKind::Op: return op(e.as<ir::Op>(), e);
    case ir::ExprKind::Select: {
      const auto* n = e.as<ir::Select>();
      return "(" + converted(n->cond, DType::Bool) + " ? " + converted(n->if_true, e->type.dtype) + " : " +
             converted(n->if_false, e->type.dtype) + ")";
    }
    case ir::ExprKind::Cast: {
      const auto* n = e.as<ir::Cast>();
      return cast(n->value->type.dtype, e->type.dtype, expr(n->value));
    }
    case ir::ExprKind::TexSample: {
      const auto* n = e.as<ir::TexSample>();
      // Hardware sampling only where the dialect has it (the runtimes choosing it: texture_in_hardware).
      const bool hardware = k_->params[static_cast<std::size_t>(n->param)].hardware_texture;
      TACK_CHECK(!hardware || hardware_textures());
      auto extent = [&](int d) {
        const passes::PackSlot* s = packed_->pack.find(passes::PackSlot::Source::TextureExtent, n->param, d);
        TACK_CHECK(s);
        return let_name(s->let);
      };
      std::string fn = hardware ? hardware_texture_sample_helper() : texture_sample_helper();
      std::string r = fn + "(" + param_ref("t" + std::to_string(n->param)) + ", " + extent(0) + ", " + extent(1) +
                      ", " + extent(2) + ", " + converted(n->u, DType::F32) + ", " + converted(n->v, DType::F32) +
                      ", " + converted(n->w, DType::F32) + ")";
      return cast(DType::F32, e->type.dtype, r);
    }
  }
  TACK_UNREACHABLE("c_family: unknown expression kind");
}

std::string CFamilyCodeGen::op(const ir::Op* n, const ir::Expr& self) {
  DType t = n->args[0]->type.dtype;
  std::string a = expr(n->args[0]);
  std::string b = n->arity() >= 2 ? expr(n->args[1]) : std::string();
  std::string c = n->arity() >= 3 ? expr(n->args[2]) : std::string();
  const std::string T = type_name(t);
  auto bin = [&](const char* o) { return "(" + a + " " + o + " " + b + ")"; };
  auto fn1 = [&](const char* name) { return math(name, t) + "(" + a + ")"; };
  auto fn2 = [&](const char* name) { return math(name, t) + "(" + a + ", " + b + ")"; };
  using ir::OpCode;
  switch (n->op) {
    case OpCode::Eq: return bin("==");
    case OpCode::Ne: return bin("!=");
    case OpCode::Lt: return bin("<");
    case OpCode::Le: return bin("<=");
    case OpCode::Gt: return bin(">");
    case OpCode::Ge: return bin(">=");
    default: break;
  }
  if (t == DType::Bool) {
    switch (n->op) {
      case OpCode::Not:
      case OpCode::BitNot: return "(!" + a + ")";
      case OpCode::And:
      case OpCode::BitAnd:
      case OpCode::Min: return bin("&&");
      case OpCode::Or:
      case OpCode::BitOr:
      case OpCode::Max: return bin("||");
      case OpCode::BitXor: return bin("!=");
      default: TACK_UNREACHABLE("c_family: operator not defined on bool");
    }
  }
  if (is_float(t)) {
    switch (n->op) {
      case OpCode::Neg: return "(-" + a + ")";
      case OpCode::Abs: return fn1("fabs");
      case OpCode::Add: return bin("+");
      case OpCode::Sub: return bin("-");
      case OpCode::Mul: return contract_.count(self.get()) ? bin("*") : unfused_mul(t, a, b);
      case OpCode::Div: return bin("/");
      case OpCode::Mod: return fn2("fmod");
      case OpCode::FloorDiv: return math("floor", t) + "(" + a + " / " + b + ")";
      case OpCode::FloorMod: {
        std::string name = helper("tack_floormod_" + suffix(t), [&] {
          return helper_qualifier() + " " + T + " tack_floormod_" + suffix(t) + "(" + T + " a, " + T + " b) {\n  " +
                 T + " r = " + math("fmod", t) + "(a, b);\n  if (r != 0 && ((r < 0) != (b < 0))) r += b;\n" +
                 "  return r;\n}\n";
        });
        return name + "(" + a + ", " + b + ")";
      }
      case OpCode::Min:
      case OpCode::Max: return min_max_helper(n->op, t) + "(" + a + ", " + b + ")";
      case OpCode::Floor: return fn1("floor");
      case OpCode::Ceil: return fn1("ceil");
      case OpCode::Round: return fn1("rint");
      case OpCode::Trunc: return fn1("trunc");
      case OpCode::Sqrt: return fn1("sqrt");
      case OpCode::Rsqrt: return "(" + literal(t, t == DType::F32 ? 0x3f800000u : 0x3ff0000000000000ull) + " / " +
                                 fn1("sqrt") + ")";
      case OpCode::Exp: return fn1("exp");
      case OpCode::Exp2: return fn1("exp2");
      case OpCode::Log: return fn1("log");
      case OpCode::Log2: return fn1("log2");
      case OpCode::Log10: return fn1("log10");
      case OpCode::Sin: return fn1("sin");
      case OpCode::Cos: return fn1("cos");
      case OpCode::Tan: return fn1("tan");
      case OpCode::Asin: return fn1("asin");
      case OpCode::Acos: return fn1("acos");
      case OpCode::Atan: return fn1("atan");
      case OpCode::Sinh: return fn1("sinh");
      case OpCode::Cosh: return fn1("cosh");
      case OpCode::Tanh: return fn1("tanh");
      case OpCode::Atan2: return fn2("atan2");
      case OpCode::Pow: return fn2("pow");
      case OpCode::Copysign: return fn2("copysign");
      case OpCode::Fma: return math("fma", t) + "(" + a + ", " + b + ", " + c + ")";
      case OpCode::IsNan: return "(" + std::string("isnan(") + a + ") != 0)";
      case OpCode::IsInf: return "(" + std::string("isinf(") + a + ") != 0)";
      default: TACK_UNREACHABLE("c_family: operator not defined on floats");
    }
  }
  // Integers: wrapping arithmetic in the unsigned type of at least 32 bits.
  const std::string W = wide_unsigned(t);
  const int mask = bits_of_dtype(t) - 1;
  // 32- and 64-bit operands convert to W and back without loss, so a chain of wrapping operations stays in W
  // and converts once ((T)(a + b * c) rather than a cast at every step); u32 and u64 are W already.
  const bool full_width = bits_of_dtype(t) >= 32;
  const bool is_w = t == unsigned_bits(t);
  auto u_arg = [&](int i, const std::string& text) -> std::string {
    if (is_w) return text;
    const ir::ExprNode* arg = n->args[static_cast<std::size_t>(i)].get();
    if (full_width && !temps_.count(arg)) {
      auto it = unsigned_form_.find(arg);
      if (it != unsigned_form_.end()) return "(" + it->second + ")";
      if (const auto* c = n->args[static_cast<std::size_t>(i)].as<ir::Const>(); c && c->i >= 0)
        return literal_int(unsigned_bits(t), c->i);
    }
    return "(" + W + ")" + text;
  };
  auto wrapped = [&](const std::string& v) {
    if (is_w) return "(" + v + ")";
    if (full_width) unsigned_form_[self.get()] = v;
    return "((" + T + ")(" + v + "))";
  };
  const std::string ua = u_arg(0, a), ub = n->arity() >= 2 ? u_arg(1, b) : std::string();
  auto int_helper = [&](const std::string& op_name, const std::string& body) {
    std::string name = "tack_" + op_name + "_" + suffix(t);
    helper(name, [&] { return helper_qualifier() + " " + T + " " + name + "(" + T + " a, " + T + " b) {\n" + body + "}\n"; });
    return name + "(" + a + ", " + b + ")";
  };
  const bool sig = is_signed_int(t);
  const std::string zero = literal_int(t, 0);
  const std::string minus_one = sig ? literal_int(t, -1) : "";
  const std::string neg_a = "(" + T + ")((" + W + ")0 - (" + W + ")a)";
  switch (n->op) {
    case OpCode::Neg: return wrapped("(" + W + ")0 - " + ua);
    case OpCode::Abs: {
      if (!sig) return a;
      std::string name = helper("tack_abs_" + suffix(t), [&] {
        return helper_qualifier() + " " + T + " tack_abs_" + suffix(t) + "(" + T + " a) {\n  return a < 0 ? " +
               neg_a + " : a;\n}\n";
      });
      return name + "(" + a + ")";
    }
    case OpCode::BitNot: return wrapped("~" + ua);
    case OpCode::Add: return wrapped(ua + " + " + ub);
    case OpCode::Sub: return wrapped(ua + " - " + ub);
    case OpCode::Mul: return wrapped(ua + " * " + ub);
    case OpCode::BitAnd: return wrapped(ua + " & " + ub);
    case OpCode::BitOr: return wrapped(ua + " | " + ub);
    case OpCode::BitXor: return wrapped(ua + " ^ " + ub);
    case OpCode::Shl: return wrapped(ua + " << (" + ub + " & " + std::to_string(mask) + "u)");
    case OpCode::Shr:
      // Arithmetic for signed types (C leaves a negative operand's shift implementation-defined; every GPU
      // compiler shifts arithmetically), logical for unsigned.
      if (sig) return "((" + T + ")(" + a + " >> (int)(" + ub + " & " + std::to_string(mask) + "u)))";
      return wrapped(ua + " >> (" + ub + " & " + std::to_string(mask) + "u)");
    case OpCode::Div:
      return int_helper("div", "  if (b == " + zero + ") return " + zero + ";\n" +
                                   (sig ? "  if (b == " + minus_one + ") return " + neg_a + ";\n" : "") +
                                   "  return (" + T + ")(a / b);\n");
    case OpCode::Mod:
      return int_helper("mod", "  if (b == " + zero + ") return " + zero + ";\n" +
                                   (sig ? "  if (b == " + minus_one + ") return " + zero + ";\n" : "") +
                                   "  return (" + T + ")(a % b);\n");
    case OpCode::FloorDiv:
      return int_helper("floordiv",
                        "  if (b == " + zero + ") return " + zero + ";\n" +
                            (sig ? "  if (b == " + minus_one + ") return " + neg_a + ";\n  " + T + " q = (" + T +
                                       ")(a / b);\n  if (a % b != 0 && ((a < 0) != (b < 0))) q = (" + T +
                                       ")(q - 1);\n  return q;\n"
                                 : "  return (" + T + ")(a / b);\n"));
    case OpCode::FloorMod:
      return int_helper("floormod",
                        "  if (b == " + zero + ") return " + zero + ";\n" +
                            (sig ? "  if (b == " + minus_one + ") return " + zero + ";\n  " + T + " r = (" + T +
                                       ")(a % b);\n  if (r != 0 && ((r < 0) != (b < 0))) r = (" + T +
                                       ")(r + b);\n  return r;\n"
                                 : "  return (" + T + ")(a % b);\n"));
    case OpCode::Min:
    case OpCode::Max: return min_max_helper(n->op, t) + "(" + a + ", " + b + ")";
    default: TACK_UNREACHABLE("c_family: operator not defined on integers");
  }
}

}  // namespace tack::codegen
