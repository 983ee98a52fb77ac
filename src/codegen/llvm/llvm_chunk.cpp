// The CPU backend's exported entry: tack_chunk_<name>(ptr pack, i64 start, i64 end)
// reads each argument from its 8-byte slot of the argument pack (pack_layout)
// and calls the kernel function, which the pass pipeline then inlines into it.
#include "codegen/llvm/llvm_kernel_emitter.hpp"

#include "codegen/llvm/llvm_ops.hpp"
#include "abi/pack_layout.hpp"
#include "ir/check.hpp"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace tack::codegen::detail {

using llvm::BasicBlock;
using llvm::Value;

void emit_chunk(const ir::Kernel& k, llvm::Module& m, llvm::Function* kernel, const std::string& name) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  auto* fty = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, i64, i64}, false);
  auto* fn = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, name, m);
  fn->setDoesNotThrow();
  fn->addFnAttr("no-trapping-math", "true");
  llvm::Argument* pack = fn->getArg(0);
  pack->setName("pack");
  pack->addAttr(llvm::Attribute::NoCapture);
  pack->addAttr(llvm::Attribute::ReadOnly);
  fn->getArg(1)->setName("start");
  fn->getArg(2)->setName("end");
  llvm::IRBuilder<> b(BasicBlock::Create(c, "entry", fn));
  abi::PackLayout layout = abi::pack_layout(k);
  std::vector<Value*> args;
  auto load_slot = [&](int slot, llvm::Type* ty) -> Value* {
    Value* at = b.CreateConstInBoundsGEP1_64(i64, pack, static_cast<std::uint64_t>(slot));
    return b.CreateAlignedLoad(ty, at, llvm::Align(8));
  };
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ir::Param& p = k.params[i];
    int s = layout.first_slot[i];
    switch (p.kind) {
      case ir::ParamKind::Array:
        args.push_back(load_slot(s, ptr));
        for (int d = 0; d < 1 + p.rank; ++d) args.push_back(load_slot(s + 1 + d, i64));
        break;
      case ir::ParamKind::Scalar: {
        Value* bits = load_slot(s, i64);
        llvm::Type* ty = memory_type(c, p.dtype);
        if (is_float(p.dtype)) {
          unsigned w = static_cast<unsigned>(dtype_bits(p.dtype));
          args.push_back(b.CreateBitCast(b.CreateTrunc(bits, b.getIntNTy(w)), ty));
        } else {
          args.push_back(b.CreateTrunc(bits, ty));  // a no-op for 64-bit types
        }
        break;
      }
      case ir::ParamKind::Texture:
        args.push_back(load_slot(s, ptr));
        for (int d = 0; d < 3; ++d) args.push_back(load_slot(s + 1 + d, i64));
        break;
    }
  }
  args.push_back(fn->getArg(1));
  args.push_back(fn->getArg(2));
  b.CreateCall(kernel, args);
  b.CreateRetVoid();
}

}  // namespace tack::codegen::detail
