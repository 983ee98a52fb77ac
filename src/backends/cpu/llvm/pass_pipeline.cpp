// The CPU backend's LLVM pass pipelines: O3 for the scalar path, a short one
// for the SIMD path.
#include "backends/cpu/llvm/pass_pipeline.hpp"

#include <tack/error.hpp>

#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include <string>

namespace tack::backends::cpu {
namespace {

// What the SIMD path's IR needs, in the order it needs it: the kernel inlined
// into its chunk entry; its locals (lets, loop indices, the execution mask) in
// registers; common subexpressions merged and constants folded; the row's
// invariants hoisted out of the gang loop and loops rotated; redundant loads
// removed; loops unrolled as O3 unrolls them (an atomic's loop over the lanes
// fully, a `for_range` by its trip count), then cleaned up. O3 spends most of
// its time on this IR in passes that leave it as it is (the loop and SLP
// vectorizers, the inliner's call-graph walk, repeated rounds of the same
// simplifications): a third of O3's optimization time on LBM, for the same
// kernel run times (bench/RESULTS.md, "Cold compile of the SIMD path").
// InstCombine runs as in O3, one iteration without checking that it reached a
// fixpoint: the textual pipeline's default checks, and aborts the process with
// "LLVM ERROR" where a second iteration would still change something.
constexpr const char* kGangPipeline =
    "always-inline,"
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-mssa(licm,loop-rotate,licm),gvn,instcombine<no-verify-fixpoint>,"
    "loop-unroll<O3>,instcombine<no-verify-fixpoint>,simplifycfg)";

}  // namespace

void optimize_module(llvm::Module& module, llvm::TargetMachine& target, bool gangs) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  llvm::PassBuilder pb(&target, tuning);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (!gangs) {
    mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  } else if (llvm::Error e = pb.parsePassPipeline(mpm, kGangPipeline)) {
    throw BackendError("LLVM: the SIMD path's pass pipeline does not parse (a Tack bug): " +
                       llvm::toString(std::move(e)));
  }
  mpm.run(module, mam);
}

}  // namespace tack::backends::cpu
