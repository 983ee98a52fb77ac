// Private to src/codegen: lowering of single operators, casts and texture
// samples to LLVM IR, exactly as ir/scalar_ops.cpp and interp/texture_sample.cpp
// compute them (docs/semantics.md). Only forward declarations of LLVM types here, so
// this header stays free of LLVM's headers.
#pragma once

#include "codegen/llvm/vector_math.hpp"

#include "ir/ir.hpp"
#include "ir/scalar_ops.hpp"

namespace llvm {
class IRBuilderBase;
class LLVMContext;
class Type;
class Value;
}  // namespace llvm

namespace tack::codegen::detail {

// The type a value of dtype t has in registers: Bool is i1, integers iN (signed
// and unsigned alike), f32 float, f64 double. Every function below also takes
// vectors of these (the CPU's SIMD path) and then returns vectors.
llvm::Type* value_type(llvm::LLVMContext& c, DType t);
// The type it has in memory and in the kernel's signature: Bool is i8.
llvm::Type* memory_type(llvm::LLVMContext& c, DType t);

// A constant of dtype t from its canonical Bits.
llvm::Value* emit_const(llvm::IRBuilderBase& b, DType t, ir::Bits bits);

// `op` applied to operands of dtype t (args[0..arity-1], in value_type(t)), as
// ir::eval_op computes it, with no undefined behaviour and no poison. With
// `contract`, an f32/f64 Mul, Add or Sub carries the `contract` fast-math flag
// (the only flag ever emitted); the caller decides when that is allowed.
// Transcendentals of vectors go to `math`.
llvm::Value* emit_op(llvm::IRBuilderBase& b, ir::OpCode op, DType t, llvm::Value* const* args, bool contract,
                     const codegen::VectorMath& math = {});

// A conversion as ir::eval_cast computes it.
llvm::Value* emit_cast(llvm::IRBuilderBase& b, DType from, DType to, llvm::Value* v);

// `scalar`, or a vector of it as long as v is one (the CPU's SIMD path).
llvm::Type* shaped_like(llvm::Type* scalar, llvm::Value* v);

// Memory <-> register form of one element (only Bool differs: i8 in memory).
llvm::Value* to_memory(llvm::IRBuilderBase& b, DType t, llvm::Value* v);
llvm::Value* from_memory(llvm::IRBuilderBase& b, DType t, llvm::Value* v);

// Trilinear sample of a software texture, as interp::texture_sample computes it.
// `data` is a ptr to f32 texels, (x, y, z) at data[(z * height + y) * width + x];
// the extents are i64, the coordinates f32.
struct TextureValues {
  llvm::Value* data;
  llvm::Value* width;
  llvm::Value* height;
  llvm::Value* depth;
};
llvm::Value* emit_texture_sample(llvm::IRBuilderBase& b, const TextureValues& tex, llvm::Value* u, llvm::Value* v,
                                 llvm::Value* w);

}  // namespace tack::codegen::detail
