// The shared C-family emitter's kernel structure: parameters, declarations, the
// launch prologue, shared arrays and helpers around the body. Statements,
// expressions, operators and helper C are in the other c_family_*.cpp files.
//
// Shape of the generated code:
// - A parallel kernel computes its 64-bit flat index, returns past `__n__`, reads
//   the scalar packs, then decomposes the index into the N-D loop indices.
// - Every Let and Var is declared at the top of the kernel and assigned where it
//   is bound, so C scopes never disagree with the IR's.
// - Expressions are pure: within one statement a node used more than once is
//   computed once into a temporary; everything else is one C expression, so the
//   contraction rules of docs/semantics.md follow from C's: a float product may fuse
//   only when its one use is an add or subtract of the same statement;
//   any other product goes through unfused_mul() for dialects (CUDA) whose
//   compiler also fuses across statements.
// - Integer arithmetic that may wrap is done in unsigned types; division,
//   modulo, min, max, abs and float-to-int conversions are helpers with
//   docs/semantics.md's edge cases spelled out.
#include "codegen/c_family.hpp"

#include "codegen/identifiers.hpp"
#include "ir/check.hpp"

#include <algorithm>

namespace tack::codegen {

CSource CFamilyCodeGen::generate(const abi::PackedKernel& packed) {
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
    std::string name = (p.kind == ir::ParamKind::Texture ? "t"
                        : p.scalar_pack                  ? "pack_"
                                                         : "a") +
                       (p.scalar_pack ? suffix(p.dtype) : std::to_string(i));
    if (p.kind == ir::ParamKind::Texture && p.hardware_texture) {
      // The runtime chooses hardware only on backends whose generator has it (texture_in_hardware).
      TACK_CHECK(hardware_textures());
      decls.push_back(texture_object_type() + " " + name);
    } else {
      decls.push_back(global_pointer(p.dtype, p.scalar_pack || p.kind == ir::ParamKind::Texture) + " " + name);
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
  // Local arrays: private to the work-item in every C-family language; zeroed by the IR where declared.
  for (std::size_t i = 0; i < k.locals.size(); ++i)
    decl_block += "  " + type_name(k.locals[i].dtype) + " la" + std::to_string(i) + "[" +
                  std::to_string(k.locals[i].count) + "];\n";

  const auto* top = k.body.as<ir::Block>();
  TACK_CHECK(top && static_cast<int>(top->stmts.size()) >= packed.leading_lets);
  for (int i = 0; i < packed.leading_lets; ++i) stmt(top->stmts[static_cast<std::size_t>(i)]);

  std::string prologue;
  if (!workgroup) {
    prologue +=
        "  const " + I64 + " __i__ = " + global_index() + ";\n  if (__i__ >= " + param_ref("__n__") + ") return;\n";
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
    prologue +=
        "  const " + I64 + " __lid__ = " + local_id() + ";\n  const " + I64 + " __gid__ = " + group_id() + ";\n";
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
    const std::int64_t per_word =
        4 / std::min<std::int64_t>(4, static_cast<std::int64_t>(dtype_size(k.shared[i].dtype)));
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

}  // namespace tack::codegen
