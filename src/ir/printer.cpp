// Prints Tack IR as stable, readable text.
#include "ir/printer.hpp"

#include "ir/check.hpp"

#include <cstdio>

namespace tack::ir {
namespace {

std::string array_name(ArrayRef a) {
  const char* prefix = a.space == ArrayRef::Space::Param    ? "%"
                       : a.space == ArrayRef::Space::Shared ? "shared"
                                                            : "local";
  return prefix + std::to_string(a.index);
}

std::string const_text(const Const* c) {
  char buf[64];
  if (c->type.is_unknown() || is_float(c->type.dtype)) {
    std::snprintf(buf, sizeof buf, "%.17g", c->f);
  } else if (c->type.dtype == DType::Bool) {
    return c->i ? "true" : "false";
  } else if (c->type.dtype == DType::U64) {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(c->u()));
  } else {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(c->i));
  }
  return std::string(c->type.is_weak() ? "weak." : "") + std::string(dtype_name(c->type.dtype)) + "(" + buf + ")";
}

const char* group_field_name(GroupField f) {
  switch (f) {
    case GroupField::LocalId: return "local_id";
    case GroupField::GroupId: return "group_id";
    case GroupField::GroupSize: return "group_size";
    case GroupField::NumGroups: return "num_groups";
  }
  return "?";
}

// A string literal's text with quotes, backslashes and control characters escaped.
std::string escaped(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string subs(int n) { return n ? "/" + std::to_string(n) : ""; }

}  // namespace

std::string to_string(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Unknown: return "?";
    case Type::Kind::Weak: return "weak." + std::string(dtype_name(t.dtype));
    case Type::Kind::Strong: return std::string(dtype_name(t.dtype));
  }
  return "?";
}

std::string to_string(const Expr& e) {
  if (!e) return "<null>";
  auto typed = [&](std::string s) {
    return e->type.is_strong() ? s + "." + std::string(dtype_name(e->type.dtype)) : s;
  };
  switch (e->kind) {
    case ExprKind::Const: return const_text(e.as<Const>());
    case ExprKind::ScalarParam: return "%" + std::to_string(e.as<ScalarParam>()->param);
    case ExprKind::ArrayDim: {
      auto d = e.as<ArrayDim>();
      return d->dim == ArrayDim::kSize ? "size(%" + std::to_string(d->param) + ")"
                                       : "shape(%" + std::to_string(d->param) + ", " + std::to_string(d->dim) + ")";
    }
    case ExprKind::LoopIndex: return "index" + std::to_string(e.as<LoopIndex>()->dim);
    case ExprKind::GroupValue: return group_field_name(e.as<GroupValue>()->field);
    case ExprKind::LetRef: return "t" + std::to_string(e.as<LetRef>()->id);
    case ExprKind::VarRef: return "v" + std::to_string(e.as<VarRef>()->id);
    case ExprKind::Load: {
      auto l = e.as<Load>();
      return typed("load") + " " + array_name(l->array) + "[" + to_string(l->index) + "]" + subs(l->subscripts);
    }
    case ExprKind::Op: {
      auto o = e.as<Op>();
      std::string s = typed(op_name(o->op)) + "(";
      for (int i = 0; i < o->arity(); ++i) s += (i ? ", " : "") + to_string(o->args[i]);
      return s + ")";
    }
    case ExprKind::Select: {
      auto s = e.as<Select>();
      return typed("select") + "(" + to_string(s->cond) + ", " + to_string(s->if_true) + ", " + to_string(s->if_false) +
             ")";
    }
    case ExprKind::Cast: return "cast." + to_string(e->type) + "(" + to_string(e.as<Cast>()->value) + ")";
    case ExprKind::TexSample: {
      auto t = e.as<TexSample>();
      return "sample %" + std::to_string(t->param) + "(" + to_string(t->u) + ", " + to_string(t->v) + ", " +
             to_string(t->w) + ")";
    }
  }
  TACK_UNREACHABLE("unknown expression kind");
}

std::string to_string(const Stmt& s, int indent) {
  std::string pad(indent * 2, ' ');
  if (!s) return pad + "<null>\n";
  switch (s->kind) {
    case StmtKind::Block: {
      std::string out;
      for (const Stmt& c : s.as<Block>()->stmts) out += to_string(c, indent);
      return out;
    }
    case StmtKind::Let: {
      auto l = s.as<Let>();
      return pad + "let t" + std::to_string(l->id) + " = " + to_string(l->value) + "\n";
    }
    case StmtKind::DeclareVar: {
      auto v = s.as<DeclareVar>();
      return pad + "var v" + std::to_string(v->id) + " = " + to_string(v->init) + "\n";
    }
    case StmtKind::Assign: {
      auto a = s.as<Assign>();
      return pad + "v" + std::to_string(a->id) + " = " + to_string(a->value) + "\n";
    }
    case StmtKind::Store: {
      auto st = s.as<Store>();
      return pad + "store " + array_name(st->array) + "[" + to_string(st->index) + "]" + subs(st->subscripts) + " = " +
             to_string(st->value) + "\n";
    }
    case StmtKind::Atomic: {
      auto a = s.as<Atomic>();
      std::string out = pad + "let t" + std::to_string(a->result) + " = atomic_" + atomic_name(a->op) + " " +
                        array_name(a->array) + "[" + to_string(a->index) + "]" + subs(a->subscripts) + ", " +
                        to_string(a->value);
      if (a->compare) out += ", compare " + to_string(a->compare);
      return out + "\n";
    }
    case StmtKind::If: {
      auto i = s.as<If>();
      std::string out = pad + "if " + to_string(i->cond) + " {\n" + to_string(i->then_case, indent + 1);
      if (i->else_case) out += pad + "} else {\n" + to_string(i->else_case, indent + 1);
      return out + pad + "}\n";
    }
    case StmtKind::For: {
      auto f = s.as<For>();
      return pad + "for t" + std::to_string(f->index) + " in [" + to_string(f->lo) + ", " + to_string(f->hi) + ") {\n" +
             to_string(f->body, indent + 1) + pad + "}\n";
    }
    case StmtKind::Loop: return pad + "loop {\n" + to_string(s.as<Loop>()->body, indent + 1) + pad + "}\n";
    case StmtKind::Break: return pad + "break\n";
    case StmtKind::Continue: return pad + "continue\n";
    case StmtKind::Barrier: return pad + "barrier\n";
    case StmtKind::GroupReduce: {
      auto r = s.as<GroupReduce>();
      return pad + "let t" + std::to_string(r->result) + " = group_reduce_" + reduce_name(r->op) + "(" +
             to_string(r->value) + ")\n";
    }
    case StmtKind::Print: {
      // The whole format, escaped: the kernel's hash is taken over this text.
      auto p = s.as<Print>();
      std::string out = pad + "print \"" + escaped(p->format) + "\"";
      for (const Expr& a : p->args) out += ", " + to_string(a);
      return out + "\n";
    }
  }
  TACK_UNREACHABLE("unknown statement kind");
}

namespace {
// ", element 3" (a vec3) or ", element 3x3" (a mat33); empty for scalar elements.
std::string element_shape(const Param& p) {
  if (p.element_rows <= 0) return "";
  return ", element " + std::to_string(p.element_rows) +
         (p.element_cols > 0 ? "x" + std::to_string(p.element_cols) : "");
}

// Plain appends, not a stream: this text is the CPU cache key, built on every
// first call, and a process's first stream builds its locale (a tenth of a millisecond).
// `with_names` adds the Vars' names (inspect's text), which no cache key may hold.
std::string kernel_text(const Kernel& k, bool with_names) {
  std::string out = "kernel " + k.name + "(";
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    out += (i ? ", %" : "%") + std::to_string(i) + ": " + param_kind_name(p.kind);
    if (k.typed) {
      out += "<" + std::string(dtype_name(p.dtype));
      if (p.kind == ParamKind::Array) out += ", rank " + std::to_string(p.rank);
      if (p.kind == ParamKind::Texture) out += p.hardware_texture ? ", hardware" : ", software";
      out += element_shape(p) + ">";
    } else if (p.fixed_dtype || p.required_rank >= 0 || p.element_rows > 0) {
      // A required rank or element shape is part of the traced kernel's text, and so of its hash.
      std::string rank = p.required_rank >= 0 ? "rank " + std::to_string(p.required_rank) : "";
      std::string head =
          (p.fixed_dtype ? std::string(dtype_name(*p.fixed_dtype)) + (rank.empty() ? "" : ", ") : "") + rank;
      std::string element = element_shape(p);
      out += "<" + (head.empty() && !element.empty() ? element.substr(2) : head + element) + ">";
    }
    if (p.gradient_of >= 0) out += " grad %" + std::to_string(p.gradient_of);
  }
  out += ")\n";
  // Only when off, so the text (and every cache key) of a default kernel is as before the option existed.
  if (!k.fp_contract) out += "fp_contract off\n";
  if (k.derivative != Derivative::None)
    out += k.derivative == Derivative::Adjoint ? "derivative adjoint\n" : "derivative tangent\n";
  for (size_t i = 0; i < k.shared.size(); ++i)
    out += "shared" + std::to_string(i) + ": " + std::string(dtype_name(k.shared[i].dtype)) + "[" +
           std::to_string(k.shared[i].count) + "]\n";
  for (size_t i = 0; i < k.locals.size(); ++i)
    out += "local" + std::to_string(i) + ": " + std::string(dtype_name(k.locals[i].dtype)) + "[" +
           std::to_string(k.locals[i].count) + "]\n";
  if (k.typed) {
    for (size_t i = 0; i < k.vars.size(); ++i) {
      out += "v" + std::to_string(i) + ": " + to_string(k.vars[i]);
      if (with_names && i < k.var_names.size() && !k.var_names[i].empty()) out += "  # " + k.var_names[i];
      out += "\n";
    }
    for (size_t i = 0; i < k.lets.size(); ++i) out += "t" + std::to_string(i) + ": " + to_string(k.lets[i]) + "\n";
  } else if (with_names) {
    // Untyped, the Vars have no table of their own: list the names before the body.
    for (size_t i = 0; i < k.var_names.size(); ++i)
      if (!k.var_names[i].empty()) out += "# v" + std::to_string(i) + ": " + k.var_names[i] + "\n";
  }
  out += k.launch == LaunchKind::Parallel ? "parallel_for [" : "workgroup_for [";
  for (size_t i = 0; i < k.dims.size(); ++i) out += (i ? ", " : "") + to_string(k.dims[i]);
  out += "] {\n" + to_string(k.body, 1) + "}\n";
  return out;
}
}  // namespace

std::string to_string(const Kernel& k) { return kernel_text(k, false); }

std::string to_string_named(const Kernel& k) { return kernel_text(k, true); }

}  // namespace tack::ir
