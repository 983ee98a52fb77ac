// Prints Tack IR as stable, readable text.
#include "ir/printer.hpp"

#include "ir/check.hpp"
#include "ir/node_set.hpp"

#include <charconv>
#include <cstdio>

namespace tack::ir {
namespace {

// The text being written; with `shared`, each expression node that is not a leaf is written in full once and
// as "#n" where it is met again (to_key_text).
struct Text : std::string {
  NodeSet* shared = nullptr;
  std::string take() { return std::move(*this); }
};

// Every piece is appended to one string: the text of a traced kernel is hashed at its first call, and the CPU's
// disk-cache key is the typed kernel's text, so a string built and freed per node was most of their time (LBM's
// trace and text 0.49 -> 0.33 ms; its first call from a warm disk cache 1.08 -> 0.88 ms).
// std::to_chars writes what printf's "%lld" and "%.17g" write (the standard defines it so), without the stdio
// and locale machinery: printing numbers was a fifth of tracing a kernel with many constants (a D2Q9 step).
template <class... Format>
void append_chars(Text& out, Format... value_and_format) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, value_and_format...);
  out.append(buf, r.ptr);
}

void append_number(Text& out, long long v) { append_chars(out, v); }

void append_array_name(Text& out, ArrayRef a) {
  out += a.space == ArrayRef::Space::Param ? "%" : a.space == ArrayRef::Space::Shared ? "shared" : "local";
  append_number(out, a.index);
}

void append_const(Text& out, const Const* c) {
  if (c->type.dtype == DType::Bool && !c->type.is_unknown()) {
    out += c->i ? "true" : "false";
    return;
  }
  if (c->type.is_weak()) out += "weak.";
  out += dtype_name(c->type.dtype);
  out += '(';
  if (c->type.is_unknown() || is_float(c->type.dtype)) {
    append_chars(out, c->f, std::chars_format::general, 17);
  } else if (c->type.dtype == DType::U64) {
    append_chars(out, static_cast<unsigned long long>(c->u()));
  } else {
    append_chars(out, static_cast<long long>(c->i));
  }
  out += ')';
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
void append_escaped(Text& out, const std::string& s) {
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
}

void append_subscripts(Text& out, int n) {
  if (!n) return;
  out += '/';
  append_number(out, n);
}

void append_type(Text& out, const Type& t) {
  switch (t.kind) {
    case Type::Kind::Unknown: out += '?'; return;
    case Type::Kind::Weak:
      out += "weak.";
      out += dtype_name(t.dtype);
      return;
    case Type::Kind::Strong: out += dtype_name(t.dtype); return;
  }
  out += '?';
}

void append_expr(Text& out, const Expr& e);

// "%2[index]/2": an array element as loads, stores and atomics name it.
void append_access(Text& out, ArrayRef array, const Expr& index, int subscripts) {
  append_array_name(out, array);
  out += '[';
  append_expr(out, index);
  out += ']';
  append_subscripts(out, subscripts);
}

// name, and ".dtype" where the node's type is strong.
void append_typed(Text& out, const Expr& e, const char* name) {
  out += name;
  if (e->type.is_strong()) {
    out += '.';
    out += dtype_name(e->type.dtype);
  }
}

// "(a, b, c)"
void append_args(Text& out, std::initializer_list<const Expr*> args) {
  out += '(';
  bool first = true;
  for (const Expr* a : args) {
    if (!first) out += ", ";
    first = false;
    append_expr(out, *a);
  }
  out += ')';
}

// Whether an expression has operands: what to_key_text writes once.
bool has_operands(ExprKind k) {
  return k == ExprKind::Load || k == ExprKind::Op || k == ExprKind::Select || k == ExprKind::Cast ||
         k == ExprKind::TexSample;
}

void append_expr(Text& out, const Expr& e) {
  if (!e) {
    out += "<null>";
    return;
  }
  if (out.shared && has_operands(e->kind)) {
    const NodeSet::Inserted seen = out.shared->insert(e.get());
    if (!seen.second) {
      out += '#';
      append_number(out, static_cast<long long>(seen.number));
      return;
    }
  }
  switch (e->kind) {
    case ExprKind::Const: return append_const(out, e.as<Const>());
    case ExprKind::ScalarParam: out += '%'; return append_number(out, e.as<ScalarParam>()->param);
    case ExprKind::ArrayDim: {
      auto d = e.as<ArrayDim>();
      out += d->dim == ArrayDim::kSize ? "size(%" : "shape(%";
      append_number(out, d->param);
      if (d->dim != ArrayDim::kSize) {
        out += ", ";
        append_number(out, d->dim);
      }
      out += ')';
      return;
    }
    case ExprKind::LoopIndex: out += "index"; return append_number(out, e.as<LoopIndex>()->dim);
    case ExprKind::GroupValue: out += group_field_name(e.as<GroupValue>()->field); return;
    case ExprKind::LetRef: out += 't'; return append_number(out, e.as<LetRef>()->id);
    case ExprKind::VarRef: out += 'v'; return append_number(out, e.as<VarRef>()->id);
    case ExprKind::Load: {
      auto l = e.as<Load>();
      append_typed(out, e, "load");
      out += ' ';
      return append_access(out, l->array, l->index, l->subscripts);
    }
    case ExprKind::Op: {
      auto o = e.as<Op>();
      append_typed(out, e, op_name(o->op));
      out += '(';
      for (int i = 0; i < o->arity(); ++i) {
        if (i) out += ", ";
        append_expr(out, o->args[i]);
      }
      out += ')';
      return;
    }
    case ExprKind::Select: {
      auto s = e.as<Select>();
      append_typed(out, e, "select");
      return append_args(out, {&s->cond, &s->if_true, &s->if_false});
    }
    case ExprKind::Cast:
      out += "cast.";
      append_type(out, e->type);
      return append_args(out, {&e.as<Cast>()->value});
    case ExprKind::TexSample: {
      auto t = e.as<TexSample>();
      out += "sample %";
      append_number(out, t->param);
      return append_args(out, {&t->u, &t->v, &t->w});
    }
  }
  TACK_UNREACHABLE("unknown expression kind");
}

void append_stmt(Text& out, const Stmt& s, int indent);

// "<pad><name><id> = ": the head of a line that binds a Let ("let t") or a Var ("var v", "v").
void append_binding(Text& out, int indent, const char* name, int id) {
  out.append(static_cast<std::size_t>(indent) * 2, ' ');
  out += name;
  append_number(out, id);
  out += " = ";
}

// A binding line whose value is one expression.
void append_binding_line(Text& out, int indent, const char* name, int id, const Expr& value) {
  append_binding(out, indent, name, id);
  append_expr(out, value);
  out += '\n';
}

// " {\n<body><pad>}\n"
void append_body(Text& out, const Stmt& body, int indent) {
  out += " {\n";
  append_stmt(out, body, indent + 1);
  out.append(static_cast<std::size_t>(indent) * 2, ' ');
  out += "}\n";
}

void append_stmt(Text& out, const Stmt& s, int indent) {
  const auto pad = [&] { out.append(static_cast<std::size_t>(indent) * 2, ' '); };
  if (!s) {
    pad();
    out += "<null>\n";
    return;
  }
  switch (s->kind) {
    case StmtKind::Block:
      for (const Stmt& c : s.as<Block>()->stmts) append_stmt(out, c, indent);
      return;
    case StmtKind::Let: return append_binding_line(out, indent, "let t", s.as<Let>()->id, s.as<Let>()->value);
    case StmtKind::DeclareVar:
      return append_binding_line(out, indent, "var v", s.as<DeclareVar>()->id, s.as<DeclareVar>()->init);
    case StmtKind::Assign: return append_binding_line(out, indent, "v", s.as<Assign>()->id, s.as<Assign>()->value);
    case StmtKind::Store: {
      auto st = s.as<Store>();
      pad();
      out += "store ";
      append_access(out, st->array, st->index, st->subscripts);
      out += " = ";
      append_expr(out, st->value);
      out += '\n';
      return;
    }
    case StmtKind::Atomic: {
      auto a = s.as<Atomic>();
      append_binding(out, indent, "let t", a->result);
      out += "atomic_";
      out += atomic_name(a->op);
      out += ' ';
      append_access(out, a->array, a->index, a->subscripts);
      out += ", ";
      append_expr(out, a->value);
      if (a->compare) {
        out += ", compare ";
        append_expr(out, a->compare);
      }
      out += '\n';
      return;
    }
    case StmtKind::If: {
      auto i = s.as<If>();
      pad();
      out += "if ";
      append_expr(out, i->cond);
      out += " {\n";
      append_stmt(out, i->then_case, indent + 1);
      if (i->else_case) {
        pad();
        out += "} else {\n";
        append_stmt(out, i->else_case, indent + 1);
      }
      pad();
      out += "}\n";
      return;
    }
    case StmtKind::For: {
      auto f = s.as<For>();
      pad();
      out += "for t";
      append_number(out, f->index);
      out += " in [";
      append_expr(out, f->lo);
      out += ", ";
      append_expr(out, f->hi);
      out += ')';
      return append_body(out, f->body, indent);
    }
    case StmtKind::Loop:
      pad();
      out += "loop";
      return append_body(out, s.as<Loop>()->body, indent);
    case StmtKind::Break:
      pad();
      out += "break\n";
      return;
    case StmtKind::Continue:
      pad();
      out += "continue\n";
      return;
    case StmtKind::Barrier:
      pad();
      out += "barrier\n";
      return;
    case StmtKind::GroupReduce: {
      auto r = s.as<GroupReduce>();
      append_binding(out, indent, "let t", r->result);
      out += "group_reduce_";
      out += reduce_name(r->op);
      append_args(out, {&r->value});
      out += '\n';
      return;
    }
    case StmtKind::Print: {
      // The whole format, escaped: the kernel's hash is taken over this text.
      auto p = s.as<Print>();
      pad();
      out += "print \"";
      append_escaped(out, p->format);
      out += '"';
      for (const Expr& a : p->args) {
        out += ", ";
        append_expr(out, a);
      }
      out += '\n';
      return;
    }
  }
  TACK_UNREACHABLE("unknown statement kind");
}

}  // namespace

std::string to_string(const Type& t) {
  Text out;
  append_type(out, t);
  return out.take();
}

std::string to_string(const Expr& e) {
  Text out;
  append_expr(out, e);
  return out.take();
}

std::string to_string(const Stmt& s, int indent) {
  Text out;
  append_stmt(out, s, indent);
  return out.take();
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
std::string kernel_text(const Kernel& k, bool with_names, NodeSet* shared = nullptr) {
  Text out;
  out.shared = shared;
  out.reserve(4096);
  out += "kernel " + k.name + "(";
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
  for (size_t i = 0; i < k.dims.size(); ++i) {
    if (i) out += ", ";
    append_expr(out, k.dims[i]);
  }
  out += "] {\n";
  append_stmt(out, k.body, 1);
  out += "}\n";
  return out.take();
}
}  // namespace

std::string to_string(const Kernel& k) { return kernel_text(k, false); }

std::string to_string_named(const Kernel& k) { return kernel_text(k, true); }

std::string to_key_text(const Kernel& k) {
  NodeSet shared;
  return kernel_text(k, false, &shared);
}

}  // namespace tack::ir
