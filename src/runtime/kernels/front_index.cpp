// The front index's entries: a few lines of text for the launch (its kind and
// each dimension of its range), a blank line, then the backend's part.
#include "runtime/kernels/front_index.hpp"

#include "runtime/cache/disk_cache.hpp"
#include "runtime/diagnostics/warnings.hpp"
#include "runtime/kernels/arg_key.hpp"
#include "support/spaced_numbers.hpp"

#include <array>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>

namespace tack::runtime {
namespace {

constexpr std::string_view kHeader = "tack-front-1\n";

constexpr int kOpCount = 0
#define TACK_OP(Name, arity, spelling, category) +1
#include "ir/ops.def"
    ;

using support::append_spaced_number;

std::int64_t type_code(const ir::Type& t) { return static_cast<std::int64_t>(t.kind) * 16 + static_cast<int>(t.dtype); }

// A launch range's dimension in prefix form, a letter and numbers per node: what runtime::launch reads or gives
// the host evaluator (launch.cpp, extent_of), which may be any expression of array extents, constants and
// scalars (`inp.shape[0] - 2`). False for an expression of anything else.
bool write_expr(const ir::Expr& e, std::string& out) {
  switch (e->kind) {
    case ir::ExprKind::ArrayDim:
      out += " d";
      append_spaced_number(out, e.as<ir::ArrayDim>()->param);
      append_spaced_number(out, e.as<ir::ArrayDim>()->dim);
      return true;
    case ir::ExprKind::Const: {
      auto c = e.as<ir::Const>();
      std::int64_t bits;
      std::memcpy(&bits, &c->f, sizeof bits);
      out += " c";
      append_spaced_number(out, type_code(e->type));
      append_spaced_number(out, c->i);
      append_spaced_number(out, bits);
      return true;
    }
    case ir::ExprKind::ScalarParam:
      out += " s";
      append_spaced_number(out, type_code(e->type));
      append_spaced_number(out, e.as<ir::ScalarParam>()->param);
      return true;
    case ir::ExprKind::Cast:
      out += " k";
      append_spaced_number(out, type_code(e->type));
      return write_expr(e.as<ir::Cast>()->value, out);
    case ir::ExprKind::Select: {
      auto n = e.as<ir::Select>();
      out += " q";
      append_spaced_number(out, type_code(e->type));
      return write_expr(n->cond, out) && write_expr(n->if_true, out) && write_expr(n->if_false, out);
    }
    case ir::ExprKind::Op: {
      auto n = e.as<ir::Op>();
      out += " o";
      append_spaced_number(out, type_code(e->type));
      append_spaced_number(out, static_cast<int>(n->op));
      for (int i = 0; i < n->arity(); ++i)
        if (!write_expr(n->args[static_cast<std::size_t>(i)], out)) return false;
      return true;
    }
    default: return false;
  }
}

struct LaunchShape {
  ir::LaunchKind launch = ir::LaunchKind::Parallel;
  std::vector<ir::Expr> dims;
};

// Reads back one line that write_expr wrote, for a kernel of `params` parameters.
class ExprReader {
 public:
  ExprReader(std::string_view line, std::size_t params) : text_(line), params_(params) {}

  // The expression, or null where the line is not one write_expr wrote.
  ir::Expr read() {
    ir::Expr e = node(0);
    return e && text_.empty() ? e : ir::Expr();
  }

 private:
  bool letter(char& c) {
    if (text_.size() < 2 || text_[0] != ' ') return false;
    c = text_[1];
    text_.remove_prefix(2);
    return true;
  }
  bool number(std::int64_t& v) { return support::read_spaced_number(text_, v); }
  bool type(ir::Type& t) {
    std::int64_t code = 0;
    if (!number(code) || code < 0 || code % 16 > static_cast<int>(DType::F64) || code / 16 > 2) return false;
    t = ir::Type{static_cast<ir::Type::Kind>(code / 16), static_cast<DType>(code % 16)};
    return true;
  }
  bool param(std::int64_t& p) { return number(p) && p >= 0 && static_cast<std::size_t>(p) < params_; }

  ir::Expr node(int depth) {
    char c = 0;
    ir::Type t;
    std::int64_t a = 0, b = 0, bits = 0;
    if (depth > 64 || !letter(c)) return {};
    switch (c) {
      case 'd':
        if (!param(a) || !number(b) || (b != ir::ArrayDim::kSize && (b < 0 || b > 3))) return {};
        return ir::ArrayDim::make(static_cast<int>(a), static_cast<int>(b));
      case 'c': {
        if (!type(t) || !number(a) || !number(bits)) return {};
        double f;
        std::memcpy(&f, &bits, sizeof f);
        return ir::Expr(std::make_shared<const ir::Const>(t, a, f));
      }
      case 's':
        if (!type(t) || !param(a)) return {};
        return ir::ScalarParam::make(t, static_cast<int>(a));
      case 'k': {
        if (!type(t)) return {};
        ir::Expr v = node(depth + 1);
        return v ? ir::Cast::make(t, std::move(v)) : ir::Expr();
      }
      case 'q': {
        if (!type(t)) return {};
        ir::Expr cond = node(depth + 1);
        ir::Expr yes = cond ? node(depth + 1) : ir::Expr();
        ir::Expr no = yes ? node(depth + 1) : ir::Expr();
        return no ? ir::Select::make(t, std::move(cond), std::move(yes), std::move(no)) : ir::Expr();
      }
      case 'o': {
        if (!type(t) || !number(a) || a < 0 || a >= kOpCount) return {};
        const auto op = static_cast<ir::OpCode>(a);
        std::array<ir::Expr, 3> args;
        for (int i = 0; i < ir::op_arity(op); ++i)
          if (!(args[static_cast<std::size_t>(i)] = node(depth + 1))) return {};
        return ir::Op::make(t, op, std::move(args[0]), std::move(args[1]), std::move(args[2]));
      }
      default: return {};
    }
  }

  std::string_view text_;
  std::size_t params_;
};

// The launch lines back (what store wrote for a kernel of `params` parameters); nullopt where they are not.
std::optional<LaunchShape> read_launch(std::string_view text, std::size_t params) {
  LaunchShape shape;
  const std::size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  const std::string_view kind = text.substr(0, nl);
  if (kind != "parallel" && kind != "workgroup") return std::nullopt;
  shape.launch = kind == "parallel" ? ir::LaunchKind::Parallel : ir::LaunchKind::Workgroup;
  text.remove_prefix(nl + 1);
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    ir::Expr dim = ExprReader(text.substr(0, end), params).read();
    if (!dim) return std::nullopt;
    shape.dims.push_back(std::move(dim));
    text.remove_prefix(end + 1);
  }
  return shape;
}

// The typed kernel's header as inference would make it for this signature: the traced kernel's name, lines and
// parameters, each given its argument's dtype and rank, and the launch. No body.
ir::Kernel restored_kernel(const ir::Kernel& traced, const Signature& sig, LaunchShape shape) {
  ir::Kernel k;
  k.name = traced.name;
  k.loc = traced.loc;
  k.fp_contract = traced.fp_contract;
  k.derivative = traced.derivative;
  k.params = traced.params;
  for (std::size_t i = 0; i < k.params.size() && i < sig.count; ++i) {
    const ArgKey key = ArgKey::decode(sig.items[i]);
    k.params[i].dtype = key.dtype;
    if (k.params[i].kind == ir::ParamKind::Array) k.params[i].rank = key.rank;
    k.params[i].hardware_texture = key.hardware_texture;
  }
  k.launch = shape.launch;
  k.dims = std::move(shape.dims);
  k.typed = true;
  return k;
}

}  // namespace

FrontIndex::FrontIndex(KernelImpl& impl, Backend& backend, const Signature& sig, bool skip)
    : traced_(impl.traced()), backend_(backend), sig_(sig) {
  if (skip || (sig.flags & kSignatureDebug) || !DiskCache::global().enabled()) return;
  std::optional<CacheKey> key = backend.front_key();
  if (!key) return;
  // The signature, every argument's kind, dtype and rank (ArgKey), and the call's flags, in hex.
  static constexpr char kHex[] = "0123456789abcdef";
  key->options += " signature ";
  for (int i = 0; i < sig.count; ++i)
    for (int shift = 12; shift >= 0; shift -= 4) key->options += kHex[sig.items[i] >> shift & 0xF];
  key->options += " flags ";
  key->options += kHex[sig.flags >> 4 & 0xF];
  key->options += kHex[sig.flags & 0xF];
  key->code = impl.traced_text();
  key_ = key_text(*key);
}

std::unique_ptr<CompiledVariant> FrontIndex::load() const {
  if (key_.empty()) return nullptr;
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::string> entry = DiskCache::global().load(key_);
  if (!entry) return nullptr;
  // "tack-front-1\n", the launch's lines, a blank line, the backend's part.
  const std::string_view text(*entry);
  const std::size_t blank = text.find("\n\n");
  std::optional<LaunchShape> shape;
  if (text.starts_with(kHeader) && blank != std::string_view::npos && blank >= kHeader.size())
    shape = read_launch(text.substr(kHeader.size(), blank + 1 - kHeader.size()), traced_.params.size());
  if (!shape) {
    warn("the disk cache's front entry for kernel '" + traced_.name + "' is not one this build reads; compiling");
    return nullptr;
  }
  std::unique_ptr<CompiledVariant> v = backend_.restore(text.substr(blank + 2));
  if (!v) return nullptr;
  v->typed = restored_kernel(traced_, sig_, std::move(*shape));
  v->restored = true;
  v->report.disk = CompileReport::Disk::Hit;
  v->report.front = true;
  v->report.load_ms = ms_since(start);
  return v;
}

void FrontIndex::store(CompiledVariant& v) const {
  const std::string part = std::move(v.front_entry);
  v.front_entry.clear();
  if (key_.empty() || part.empty() || v.prints.active() || v.debug_error_param >= 0) return;
  const ir::Kernel& typed = v.typed;
  if (typed.params.size() != static_cast<std::size_t>(sig_.count)) return;
  std::string entry(kHeader);
  entry += typed.launch == ir::LaunchKind::Parallel ? "parallel\n" : "workgroup\n";
  for (const ir::Expr& dim : typed.dims) {
    if (!write_expr(dim, entry)) return;
    entry += '\n';
  }
  entry += '\n';
  entry += part;
  DiskCache::global().store(key_, entry);
}

}  // namespace tack::runtime
