// The C-family code generators (CUDA C, HIP C, OpenCL C, MSL) share one emitter:
// the statement and expression structure, docs/semantics.md in C without undefined
// behaviour, helper functions emitted on demand, and contraction only inside one
// expression. Each dialect overrides the hooks where the languages differ.
#pragma once

#include "abi/c_source.hpp"
#include "abi/group_size.hpp"
#include "abi/scalar_pack.hpp"
#include "ir/ir.hpp"

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tack::codegen {

// Work-items per group in a workgroup kernel (as in the interpreter), and the
// block size of a parallel launch on CUDA and HIP.
inline constexpr int kGpuGroupSize = static_cast<int>(abi::kGroupSize);

// Generated source and how to call it (the kernel ABI's: abi/c_source.hpp).
using abi::CSource;

class CFamilyCodeGen {
 public:
  virtual ~CFamilyCodeGen() = default;
  CSource generate(const abi::PackedKernel& packed);

 protected:
  // ---- dialect hooks -------------------------------------------------------
  virtual std::string type_name(DType t) const = 0;
  // Includes, pragmas and anything else before the helpers.
  virtual std::string prelude(const ir::Kernel& k) const = 0;
  // Qualifiers of a helper function ("static __device__ __forceinline__").
  virtual std::string helper_qualifier() const = 0;
  // Pointer declarations: a parameter array, a read-only pack, a pointer in a helper.
  virtual std::string global_pointer(DType t, bool read_only) const = 0;
  // The kernel's opening line(s) up to and including "{", given the parameter
  // declarations "T* a0" ... (already spelled with global_pointer) and names.
  virtual std::string kernel_open(const std::string& entry, const std::vector<std::string>& decls,
                                  const std::vector<std::string>& names, bool workgroup) const = 0;
  // How the body names parameter `name` (MSL reads it from the argument buffer).
  virtual std::string param_ref(const std::string& name) const { return name; }
  virtual std::string global_index() const = 0;  // 64-bit flat work-item index of a parallel kernel
  virtual std::string local_id() const = 0;      // 64-bit, in a workgroup kernel
  virtual std::string group_id() const = 0;
  virtual std::string shared_decl(DType t, const std::string& name, std::int64_t count) const = 0;
  virtual std::string barrier() const = 0;
  // A math function's name for dtype t ("sqrtf" on CUDA, "sqrt" where overloaded).
  virtual std::string math(const std::string& name, DType t) const = 0;
  // A float product that must not fuse into a sum (CUDA's __fmul_rn).
  virtual std::string unfused_mul(DType t, const std::string& a, const std::string& b) const;
  // A float with these bits (infinities and NaNs).
  virtual std::string float_from_bits(DType t, std::uint64_t bits) const = 0;
  // A dialect's float_from_bits: `f32_call(0x...u)` or `f64_call(0x...<f64_suffix>)`, the bits in full hex.
  static std::string bits_literal_call(DType t, std::uint64_t bits, const char* f32_call, const char* f64_call,
                                       const char* f64_suffix);
  // Integer literal suffix for 64-bit types.
  virtual std::string i64_suffix() const = 0;
  virtual std::string u64_suffix() const = 0;
  // Float to integer (truncate, saturate, NaN to 0); empty to use the generic helper.
  virtual std::string float_to_int(DType from, DType to, const std::string& x);
  // A bit pattern reinterpreted: float <-> unsigned integer of the same width.
  virtual std::string bits_of(DType float_t, const std::string& x) const = 0;
  virtual std::string float_of_bits(DType float_t, const std::string& x) const = 0;
  // Atomic read-modify-write of *ptr (a global_pointer) for 32- and 64-bit t; returns the old value.
  // (8- and 16-bit atomics are emulated on the containing word by subword_atomic.)
  virtual std::string atomic(ir::AtomicOp op, DType t, const std::string& ptr, const std::string& value,
                             const std::string& compare) = 0;
  // For CAS-loop helpers: the pointer type of the unsigned bits of t, the first
  // (relaxed) read, and one step "if the word still holds `old`, store `desired`
  // and return `result`; else update `old`" as a statement.
  virtual std::string atomic_bits_pointer(DType bits_t) const = 0;
  virtual std::string atomic_load_bits(DType bits_t, const std::string& ptr) const = 0;
  virtual std::string cas_step(DType bits_t, const std::string& ptr, const std::string& old, const std::string& desired,
                               const std::string& result) const = 0;
  // Whether a branch of an if_ that holds a barrier (or a group reduction) ends with one more barrier, so
  // that the code after its last barrier is a region closed by a barrier rather than by the join. PoCL
  // 3.1 needs it (OpenCL): a work-item-dependent loop holding a branch, after a barrier in an if_ with no
  // else, never ends there (docs/backends-opencl.md, PoCL). The if_ is group-uniform (docs/language.md), so every
  // work-item of the group reaches the added barrier.
  virtual bool close_conditional_barrier_regions() const { return false; }
  // Hardware texture sampling (a Texture3D parameter with Param::hardware_texture set): whether the
  // dialect has it (CUDA, HIP, MSL and OpenCL C; the runtimes choose it: texture_in_hardware), the
  // texture object's type, which the kernel takes by value in the parameter's place, and a filtered
  // read of object `t` at normalized coordinates x, y, z, already moved to the hardware's texel centres.
  virtual bool hardware_textures() const { return false; }
  virtual std::string texture_object_type() const { return ""; }
  virtual std::string texture_fetch(const std::string& t, const std::string& x, const std::string& y,
                                    const std::string& z) const {
    return "";
  }

  // ---- shared services for the hooks --------------------------------------
  // Adds a helper function once; returns its name. `body` is called only the first time.
  template <class F>
  std::string helper(const std::string& name, F&& body) {
    if (helper_names_.insert(name).second) {
      std::string text = body();  // may add the helpers it uses first
      helpers_.push_back(text);
    }
    return name;
  }
  // A helper implementing op on *ptr with a compare-and-swap loop, f(cur, v) -> new value.
  std::string cas_loop_helper(const std::string& name, DType t, const std::string& combine);
  static std::string suffix(DType t);  // "f32", "i64", ...
  // OpenCL C and MSL spell the scalar types alike: char, uchar, ..., long, ulong, float, double.
  static std::string cl_type_name(DType t);
  DType unsigned_bits(DType t) const;  // u32 or u64 of t's width
  std::string wide_unsigned(DType t) const;
  std::string literal_int(DType t, std::int64_t v) const;
  std::string literal(DType t, std::uint64_t bits) const;
  std::string min_max_helper(ir::OpCode op, DType t);
  std::string subword_atomic(ir::AtomicOp op, DType t, const std::string& base, const std::string& index,
                             const std::string& value, const std::string& compare);
  // True while an atomic on a workgroup shared array is emitted (its pointers are in local memory).
  bool atomic_on_shared_ = false;

 private:
  struct Uses;
  void begin_statement(std::initializer_list<const ir::Expr*> roots);
  std::string expr(const ir::Expr& e);
  std::string compute(const ir::Expr& e);
  std::string op(const ir::Op* n, const ir::Expr& self);
  std::string converted(const ir::Expr& e, DType to);
  std::string cast(DType from, DType to, const std::string& x);
  void stmt(const ir::Stmt& s);
  void line(const std::string& text);
  void flush_temps();
  std::string array_name(const ir::ArrayRef& a) const;
  DType array_dtype(const ir::ArrayRef& a) const;
  std::string element(const ir::ArrayRef& a, const ir::Expr& index);
  std::string let_name(int id) const { return "l" + std::to_string(id); }
  std::string var_name(int id) const { return "v" + std::to_string(id); }
  std::string reduce_scratch(DType t);
  void emit_group_reduce(const ir::GroupReduce* n);
  void emit_atomic(const ir::Atomic* n);
  // Operators by category (c_family_operators.cpp); the operands' C text is computed first, in order.
  struct Operands {
    std::string a, b, c;
  };
  std::string bool_op(ir::OpCode op, const Operands& x);
  std::string float_op(const ir::Op* n, const ir::Expr& self, DType t, const Operands& x);
  std::string int_op(const ir::Op* n, const ir::Expr& self, DType t, const Operands& x);
  // Helper functions (c_family_helpers.cpp, c_family_texture_helpers.cpp); each returns the helper's name.
  std::string f64_to_f32_helper();
  std::string float_floor_helper(ir::OpCode op, DType t);  // FloorDiv, FloorMod
  std::string int_abs_helper(DType t);
  std::string int_division_helper(ir::OpCode op, DType t);  // Div, Mod, FloorDiv, FloorMod
  std::string wrapping_negation(DType t, const std::string& a) const;
  std::string texture_sample_helper();
  std::string hardware_texture_sample_helper();

  const abi::PackedKernel* packed_ = nullptr;
  const ir::Kernel* k_ = nullptr;
  std::vector<std::string> helpers_;
  std::unordered_set<std::string> helper_names_;
  std::string body_;
  int indent_ = 1;
  std::vector<std::string> loop_index_;
  std::map<int, std::string> reduce_scratch_;  // by dtype
  // Per statement: uses of each node, the products allowed to fuse, and temporaries.
  std::unordered_map<const ir::ExprNode*, int> uses_;
  std::unordered_set<const ir::ExprNode*> contract_;
  std::unordered_map<const ir::ExprNode*, std::string> temps_;
  std::unordered_map<const ir::ExprNode*, std::string> unsigned_form_;  // wrapping integer ops, before the cast back
  std::vector<std::string> pending_;
  int temp_count_ = 0;
};

}  // namespace tack::codegen
