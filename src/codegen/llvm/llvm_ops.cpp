// Operator, cast and texture lowering to LLVM IR: ir/scalar_ops.cpp and
// interp/texture_sample.cpp, instruction for instruction. Nothing here may
// produce undefined behaviour or poison: divisors are made safe with selects
// (no branches, so loops still vectorize), shift counts are masked, float to
// int conversions saturate, and no fast-math flag is emitted except the
// `contract` flag the caller asks for.
#include "codegen/llvm/llvm_ops.hpp"

#include "ir/check.hpp"

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <string>

namespace tack::codegen::detail {
namespace {

using llvm::Value;

llvm::Module& module_of(llvm::IRBuilderBase& b) { return *b.GetInsertBlock()->getModule(); }

// ---- integers -------------------------------------------------------------

Value* int_op(llvm::IRBuilderBase& b, ir::OpCode op, DType t, Value* const* x) {
  using ir::OpCode;
  const bool s = is_signed_int(t);
  Value* a = x[0];
  Value* c = op_arity(op) >= 2 ? x[1] : nullptr;
  llvm::Type* ty = a->getType();  // iN, or a vector of iN on the CPU's SIMD path
  unsigned width = ty->getScalarSizeInBits();
  Value* zero = llvm::ConstantInt::get(ty, 0);
  Value* one = llvm::ConstantInt::get(ty, 1);
  // Divisions: a divisor of 0 (and for signed types -1, whose MIN / -1 overflows) is replaced by 1, and the
  // result is fixed up with selects afterwards.
  auto divisor_zero = [&] { return b.CreateICmpEQ(c, zero); };
  auto divisor_minus_one = [&] { return b.CreateICmpEQ(c, llvm::Constant::getAllOnesValue(ty)); };
  switch (op) {
    case OpCode::Neg: return b.CreateSub(zero, a);
    case OpCode::Abs:
      if (!s) return a;
      // llvm.abs with is_int_min_poison = false: abs(MIN) == MIN, as the wrapping 0 - MIN.
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, b.getFalse());
    case OpCode::BitNot: return b.CreateXor(a, llvm::ConstantInt::getAllOnesValue(ty));
    case OpCode::Add: return b.CreateAdd(a, c);
    case OpCode::Sub: return b.CreateSub(a, c);
    case OpCode::Mul: return b.CreateMul(a, c);
    case OpCode::Div:
    case OpCode::FloorDiv: {
      Value* z = divisor_zero();
      if (!s) {
        Value* q = b.CreateUDiv(a, b.CreateSelect(z, one, c));
        return b.CreateSelect(z, zero, q);
      }
      Value* m1 = divisor_minus_one();
      Value* d = b.CreateSelect(b.CreateOr(z, m1), one, c);
      Value* q = b.CreateSDiv(a, d);
      if (op == OpCode::FloorDiv) {
        // Round toward -inf: q - 1 where the division was inexact and the signs differ (|d| >= 2 there).
        Value* r = b.CreateSRem(a, d);
        Value* inexact = b.CreateICmpNE(r, zero);
        Value* signs = b.CreateXor(b.CreateICmpSLT(a, zero), b.CreateICmpSLT(c, zero));
        q = b.CreateSub(q, b.CreateZExt(b.CreateAnd(inexact, signs), ty));
      }
      return b.CreateSelect(z, zero, b.CreateSelect(m1, b.CreateSub(zero, a), q));
    }
    case OpCode::Mod:
    case OpCode::FloorMod: {
      Value* z = divisor_zero();
      if (!s) {
        Value* r = b.CreateURem(a, b.CreateSelect(z, one, c));
        return b.CreateSelect(z, zero, r);
      }
      Value* bad = b.CreateOr(z, divisor_minus_one());
      Value* r = b.CreateSRem(a, b.CreateSelect(bad, one, c));
      if (op == OpCode::FloorMod) {
        // The sign of the divisor: r + b where r is nonzero and the signs differ (no overflow there).
        Value* nonzero = b.CreateICmpNE(r, zero);
        Value* signs = b.CreateXor(b.CreateICmpSLT(r, zero), b.CreateICmpSLT(c, zero));
        r = b.CreateSelect(b.CreateAnd(nonzero, signs), b.CreateAdd(r, c), r);
      }
      return b.CreateSelect(bad, zero, r);
    }
    case OpCode::Min: return b.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, c);
    case OpCode::Max: return b.CreateBinaryIntrinsic(s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, c);
    case OpCode::BitAnd: return b.CreateAnd(a, c);
    case OpCode::BitOr: return b.CreateOr(a, c);
    case OpCode::BitXor: return b.CreateXor(a, c);
    case OpCode::Shl:
    case OpCode::Shr: {
      // The count modulo the width: always in range, so the shift is never poison.
      Value* n = b.CreateAnd(c, llvm::ConstantInt::get(ty, width - 1));
      if (op == OpCode::Shl) return b.CreateShl(a, n);
      return s ? b.CreateAShr(a, n) : b.CreateLShr(a, n);
    }
    case OpCode::Eq: return b.CreateICmpEQ(a, c);
    case OpCode::Ne: return b.CreateICmpNE(a, c);
    case OpCode::Lt: return s ? b.CreateICmpSLT(a, c) : b.CreateICmpULT(a, c);
    case OpCode::Le: return s ? b.CreateICmpSLE(a, c) : b.CreateICmpULE(a, c);
    case OpCode::Gt: return s ? b.CreateICmpSGT(a, c) : b.CreateICmpUGT(a, c);
    case OpCode::Ge: return s ? b.CreateICmpSGE(a, c) : b.CreateICmpUGE(a, c);
    default: break;
  }
  std::string what = std::string("emit_op: '") + op_name(op) + "' is not defined on " + std::string(dtype_name(t));
  ::tack::detail::internal_error(__FILE__, __LINE__, what.c_str());
}

// ---- bool -----------------------------------------------------------------

Value* bool_op(llvm::IRBuilderBase& b, ir::OpCode op, Value* const* x) {
  using ir::OpCode;
  Value* a = x[0];
  Value* c = op_arity(op) >= 2 ? x[1] : nullptr;
  switch (op) {
    case OpCode::Not:
    case OpCode::BitNot: return b.CreateXor(a, llvm::ConstantInt::getTrue(a->getType()));
    case OpCode::And:
    case OpCode::BitAnd:
    case OpCode::Min: return b.CreateAnd(a, c);
    case OpCode::Or:
    case OpCode::BitOr:
    case OpCode::Max: return b.CreateOr(a, c);
    case OpCode::BitXor: return b.CreateXor(a, c);
    // false < true: bools compare unsigned.
    case OpCode::Eq: return b.CreateICmpEQ(a, c);
    case OpCode::Ne: return b.CreateICmpNE(a, c);
    case OpCode::Lt: return b.CreateICmpULT(a, c);
    case OpCode::Le: return b.CreateICmpULE(a, c);
    case OpCode::Gt: return b.CreateICmpUGT(a, c);
    case OpCode::Ge: return b.CreateICmpUGE(a, c);
    default: break;
  }
  std::string what = std::string("emit_op: '") + op_name(op) + "' is not defined on bool";
  ::tack::detail::internal_error(__FILE__, __LINE__, what.c_str());
}

// ---- floats ---------------------------------------------------------------

// The C library function for a transcendental operator ("expf" or "exp").
const char* libm_name(ir::OpCode op) {
  using ir::OpCode;
  switch (op) {
    case OpCode::Exp: return "exp";
    case OpCode::Exp2: return "exp2";
    case OpCode::Log: return "log";
    case OpCode::Log2: return "log2";
    case OpCode::Log10: return "log10";
    case OpCode::Sin: return "sin";
    case OpCode::Cos: return "cos";
    case OpCode::Tan: return "tan";
    case OpCode::Asin: return "asin";
    case OpCode::Acos: return "acos";
    case OpCode::Atan: return "atan";
    case OpCode::Sinh: return "sinh";
    case OpCode::Cosh: return "cosh";
    case OpCode::Tanh: return "tanh";
    case OpCode::Atan2: return "atan2";
    case OpCode::Pow: return "pow";
    default: return nullptr;
  }
}

// libmvec's name of `base` for vectors of vt ("_ZGVeN16v_sinf": ISA, lanes, one
// 'v' per vector operand, the scalar name), or "" where `math` has no variant of
// that width.
std::string libmvec_name(const codegen::VectorMath& math, const char* base, DType t, llvm::FixedVectorType* vt, int n) {
  const unsigned bits = vt->getNumElements() * static_cast<unsigned>(dtype_bits(t));
  const char isa = bits == 128 ? math.isa_128 : bits == 256 ? math.isa_256 : bits == 512 ? math.isa_512 : 0;
  if (!isa) return "";
  return std::string("_ZGV") + isa + "N" + std::to_string(vt->getNumElements()) + std::string(n, 'v') + "_" + base +
         (t == DType::F32 ? "f" : "");
}

// The C library's function: for vector operands libmvec's variant where `math`
// has one, else called once per lane, so the results are the scalar path's
// bit for bit.
Value* call_libm(llvm::IRBuilderBase& b, const char* base, DType t, Value* const* x, int n,
                 const codegen::VectorMath& math) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x[0]->getType())) {
    const std::string vector_name = libmvec_name(math, base, t, vt, n);
    if (!vector_name.empty()) {
      llvm::SmallVector<llvm::Type*, 2> params(static_cast<unsigned>(n), vt);
      llvm::FunctionCallee f =
          module_of(b).getOrInsertFunction(vector_name, llvm::FunctionType::get(vt, params, false));
      if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
        fn->setDoesNotThrow();
        fn->setDoesNotAccessMemory();
      }
      return b.CreateCall(f, llvm::ArrayRef<Value*>(x, static_cast<std::size_t>(n)));
    }
    Value* out = llvm::PoisonValue::get(vt);
    for (unsigned lane = 0; lane < vt->getNumElements(); ++lane) {
      Value* scalars[3] = {};
      for (int i = 0; i < n; ++i) scalars[i] = b.CreateExtractElement(x[i], lane);
      out = b.CreateInsertElement(out, call_libm(b, base, t, scalars, n, math), lane);
    }
    return out;
  }
  std::string name = std::string(base) + (t == DType::F32 ? "f" : "");
  llvm::Type* ty = x[0]->getType();
  llvm::SmallVector<llvm::Type*, 2> params(static_cast<unsigned>(n), ty);
  llvm::FunctionCallee f = module_of(b).getOrInsertFunction(name, llvm::FunctionType::get(ty, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) fn->setDoesNotThrow();
  return b.CreateCall(f, llvm::ArrayRef<Value*>(x, static_cast<std::size_t>(n)));
}

Value* with_contract(Value* v, bool contract) {
  if (contract) {
    if (auto* inst = llvm::dyn_cast<llvm::Instruction>(v)) {
      llvm::FastMathFlags f;
      f.setAllowContract(true);
      inst->setFastMathFlags(f);
    }
  }
  return v;
}

// scalar_ops' floor_div and floor_mod (Python's and NumPy's), their branches as selects:
//   mod = fmod(a, b); adjust = mod != 0 (NaN too) && (b < 0) != (mod < 0)
//   floormod: b == 0 ? mod : mod == 0 ? copysign(0, b) : adjust ? mod + b : mod
//   div = (a - mod) / b - (adjust ? 1 : 0); f = floor(div) + (div - floor(div) > 0.5 ? 1 : 0)
//   floordiv: b == 0 ? a / b : div == 0 ? copysign(0, a / b) : f
Value* float_floor(llvm::IRBuilderBase& b, ir::OpCode op, Value* a, Value* c) {
  llvm::Type* ty = a->getType();
  Value* zero = llvm::ConstantFP::get(ty, 0.0);
  Value* one = llvm::ConstantFP::get(ty, 1.0);
  Value* by_zero = b.CreateFCmpOEQ(c, zero);
  Value* mod = b.CreateFRem(a, c);  // frem is fmod
  Value* adjust =
      b.CreateAnd(b.CreateFCmpUNE(mod, zero), b.CreateXor(b.CreateFCmpOLT(c, zero), b.CreateFCmpOLT(mod, zero)));
  if (op == ir::OpCode::FloorMod) {
    Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, c);
    Value* r = b.CreateSelect(adjust, b.CreateFAdd(mod, c), mod);
    r = b.CreateSelect(b.CreateFCmpOEQ(mod, zero), signed_zero, r);
    return b.CreateSelect(by_zero, mod, r);
  }
  Value* quotient = b.CreateFDiv(a, c);
  Value* div = b.CreateFDiv(b.CreateFSub(a, mod), c);
  div = b.CreateSelect(adjust, b.CreateFSub(div, one), div);
  Value* floor = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
  Value* snapped = b.CreateSelect(b.CreateFCmpOGT(b.CreateFSub(div, floor), llvm::ConstantFP::get(ty, 0.5)),
                                  b.CreateFAdd(floor, one), floor);
  Value* r = b.CreateSelect(b.CreateFCmpOEQ(div, zero),
                            b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quotient), snapped);
  return b.CreateSelect(by_zero, quotient, r);
}

Value* float_op(llvm::IRBuilderBase& b, ir::OpCode op, DType t, Value* const* x, bool contract,
                const codegen::VectorMath& math) {
  using ir::OpCode;
  using llvm::Intrinsic::ID;
  Value* a = x[0];
  Value* c = op_arity(op) >= 2 ? x[1] : nullptr;
  llvm::Type* ty = a->getType();
  auto unary = [&](ID id) -> Value* { return b.CreateUnaryIntrinsic(id, a); };
  switch (op) {
    case OpCode::Neg: return b.CreateFNeg(a);
    case OpCode::Abs: return unary(llvm::Intrinsic::fabs);
    case OpCode::Add: return with_contract(b.CreateFAdd(a, c), contract);
    case OpCode::Sub: return with_contract(b.CreateFSub(a, c), contract);
    case OpCode::Mul: return with_contract(b.CreateFMul(a, c), contract);
    case OpCode::Div: return b.CreateFDiv(a, c);  // IEEE: x / ±0 is ±inf, 0 / 0 is NaN (no UB in LLVM IR)
    case OpCode::Mod: return b.CreateFRem(a, c);  // frem is fmod
    case OpCode::FloorDiv:
    case OpCode::FloorMod: return float_floor(b, op, a, c);
    // Not llvm.minnum/maxnum: they may return either zero for (+0, -0). scalar_ops returns the other operand
    // for a NaN (b when both are), else `b < a ? b : a` (min) and `a < b ? b : a` (max).
    case OpCode::Min: return b.CreateSelect(b.CreateFCmpUNO(a, a), c, b.CreateSelect(b.CreateFCmpOLT(c, a), c, a));
    case OpCode::Max: return b.CreateSelect(b.CreateFCmpUNO(a, a), c, b.CreateSelect(b.CreateFCmpOLT(a, c), c, a));
    case OpCode::Eq: return b.CreateFCmpOEQ(a, c);
    case OpCode::Ne: return b.CreateFCmpUNE(a, c);
    case OpCode::Lt: return b.CreateFCmpOLT(a, c);
    case OpCode::Le: return b.CreateFCmpOLE(a, c);
    case OpCode::Gt: return b.CreateFCmpOGT(a, c);
    case OpCode::Ge: return b.CreateFCmpOGE(a, c);
    case OpCode::Floor: return unary(llvm::Intrinsic::floor);
    case OpCode::Ceil: return unary(llvm::Intrinsic::ceil);
    case OpCode::Round: return unary(llvm::Intrinsic::roundeven);  // nearbyint in the default mode
    case OpCode::Trunc: return unary(llvm::Intrinsic::trunc);
    case OpCode::Sqrt: return unary(llvm::Intrinsic::sqrt);
    case OpCode::Rsqrt: return b.CreateFDiv(llvm::ConstantFP::get(ty, 1.0), unary(llvm::Intrinsic::sqrt));
    case OpCode::Copysign: return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, a, c);
    case OpCode::Fma: return b.CreateIntrinsic(llvm::Intrinsic::fma, {ty}, {a, c, x[2]});
    case OpCode::IsNan: return b.CreateFCmpUNO(a, a);
    case OpCode::IsInf: return b.CreateFCmpOEQ(unary(llvm::Intrinsic::fabs), llvm::ConstantFP::getInfinity(ty));
    default: break;
  }
  if (const char* name = libm_name(op)) return call_libm(b, name, t, x, op_arity(op), math);
  std::string what = std::string("emit_op: '") + op_name(op) + "' is not defined on " + std::string(dtype_name(t));
  ::tack::detail::internal_error(__FILE__, __LINE__, what.c_str());
}

// ---- texture helpers --------------------------------------------------------

struct Axis {
  Value* i0;
  Value* i1;
  Value* frac;
};

// interp::texture_sample's axis(): clamp, scale, floor, and the two texel indices.
Axis texture_axis(llvm::IRBuilderBase& b, Value* u, Value* n) {
  llvm::Type* f32 = b.getFloatTy();
  Value* zero = llvm::ConstantFP::get(f32, 0.0);
  Value* one = llvm::ConstantFP::get(f32, 1.0);
  // u > 0 ? (u < 1 ? u : 1) : 0; NaN fails "u > 0" and becomes 0.
  Value* inner = b.CreateSelect(b.CreateFCmpOLT(u, one), u, one);
  Value* c = b.CreateSelect(b.CreateFCmpOGT(u, zero), inner, zero);
  Value* last = b.CreateSub(n, b.getInt64(1));
  Value* x = b.CreateFMul(c, b.CreateSIToFP(last, f32));
  Value* x0 = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
  Value* i = b.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b.getInt64Ty(), f32}, {x0});
  Value* i0 = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, i, last);
  Value* i1 = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateAdd(i0, b.getInt64(1)), last);
  return {i0, i1, b.CreateFSub(x, x0)};
}

// (1 - f) * a + f * b, each operation rounded on its own.
Value* lerp(llvm::IRBuilderBase& b, Value* a, Value* c, Value* f) {
  Value* wa = b.CreateFSub(llvm::ConstantFP::get(b.getFloatTy(), 1.0), f);
  return b.CreateFAdd(b.CreateFMul(wa, a), b.CreateFMul(f, c));
}

}  // namespace

llvm::Type* value_type(llvm::LLVMContext& c, DType t) {
  switch (t) {
    case DType::Bool: return llvm::Type::getInt1Ty(c);
    case DType::F32: return llvm::Type::getFloatTy(c);
    case DType::F64: return llvm::Type::getDoubleTy(c);
    default: return llvm::Type::getIntNTy(c, static_cast<unsigned>(dtype_bits(t)));
  }
}

llvm::Type* memory_type(llvm::LLVMContext& c, DType t) {
  return t == DType::Bool ? llvm::Type::getInt8Ty(c) : value_type(c, t);
}

Value* emit_const(llvm::IRBuilderBase& b, DType t, ir::Bits bits) {
  llvm::LLVMContext& c = b.getContext();
  switch (t) {
    case DType::Bool: return b.getInt1(bits != 0);
    case DType::F32:
      return llvm::ConstantFP::get(c,
                                   llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits & 0xFFFFFFFFull)));
    case DType::F64: return llvm::ConstantFP::get(c, llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, bits)));
    default: {
      unsigned w = static_cast<unsigned>(dtype_bits(t));
      ir::Bits mask = w == 64 ? ~ir::Bits{0} : (ir::Bits{1} << w) - 1;
      return llvm::ConstantInt::get(llvm::Type::getIntNTy(c, w), bits & mask);
    }
  }
}

Value* emit_op(llvm::IRBuilderBase& b, ir::OpCode op, DType t, Value* const* args, bool contract,
               const codegen::VectorMath& math) {
  if (t == DType::Bool) return bool_op(b, op, args);
  if (is_float(t)) return float_op(b, op, t, args, contract, math);
  return int_op(b, op, t, args);
}

Value* emit_cast(llvm::IRBuilderBase& b, DType from, DType to, Value* v) {
  if (from == to) return v;
  llvm::LLVMContext& c = b.getContext();
  llvm::Type* ty = shaped_like(value_type(c, to), v);
  if (is_float(from)) {
    if (to == DType::Bool) return b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));  // NaN -> true
    if (to == DType::F32) return b.CreateFPTrunc(v, ty);  // round to nearest even; overflow gives ±inf
    if (to == DType::F64) return b.CreateFPExt(v, ty);
    // Truncate toward zero, saturate, NaN gives 0.
    auto id = is_signed_int(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b.CreateIntrinsic(id, {ty, v->getType()}, {v});
  }
  if (from == DType::Bool) return is_float(to) ? b.CreateUIToFP(v, ty) : b.CreateZExt(v, ty);
  // From an integer.
  if (to == DType::Bool) return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  if (is_float(to)) return is_signed_int(from) ? b.CreateSIToFP(v, ty) : b.CreateUIToFP(v, ty);
  int fw = dtype_bits(from), tw = dtype_bits(to);
  if (fw == tw) return v;  // the same bits, read with the other signedness
  if (fw > tw) return b.CreateTrunc(v, ty);
  return is_signed_int(from) ? b.CreateSExt(v, ty) : b.CreateZExt(v, ty);
}

Value* to_memory(llvm::IRBuilderBase& b, DType t, Value* v) {
  return t == DType::Bool ? b.CreateZExt(v, shaped_like(b.getInt8Ty(), v)) : v;
}

Value* from_memory(llvm::IRBuilderBase& b, DType t, Value* v) {
  return t == DType::Bool ? b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0)) : v;
}

llvm::Type* shaped_like(llvm::Type* scalar, Value* v) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType())) return llvm::VectorType::get(scalar, vt);
  return scalar;
}

Value* emit_texture_sample(llvm::IRBuilderBase& b, const TextureValues& tex, Value* u, Value* v, Value* w) {
  Axis ax = texture_axis(b, u, tex.width);
  Axis ay = texture_axis(b, v, tex.height);
  Axis az = texture_axis(b, w, tex.depth);
  llvm::Type* f32 = b.getFloatTy();
  auto texel = [&](Value* x, Value* y, Value* z) -> Value* {
    Value* index = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(z, tex.height), y), tex.width), x);
    return b.CreateAlignedLoad(f32, b.CreateInBoundsGEP(f32, tex.data, index), llvm::Align(4));
  };
  auto row = [&](Value* y, Value* z) { return lerp(b, texel(ax.i0, y, z), texel(ax.i1, y, z), ax.frac); };
  auto plane = [&](Value* z) { return lerp(b, row(ay.i0, z), row(ay.i1, z), ay.frac); };
  return lerp(b, plane(az.i0), plane(az.i1), az.frac);
}

}  // namespace tack::codegen::detail
