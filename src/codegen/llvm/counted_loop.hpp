// Private to src/codegen/llvm: the scaffold of a counted loop (its blocks, the
// counter's phi and the branch back), which the kernel's for loops, the lane
// loop and the launch loops share; what they test and how they step stays theirs.
// The instructions come out in the order the hand-built loops had them, so the
// generated IR is the same byte for byte.
#pragma once

#include <llvm/ADT/Twine.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

namespace tack::codegen::detail {

class CountedLoop {
 public:
  // The names of a loop tested at its head: the head, the body, the latch (the step) and the exit.
  struct Names {
    const char* head;
    const char* body;
    const char* latch;
    const char* exit;
  };

  // Tested at its head: creates the four blocks (in this order, which is the order they print in),
  // branches from the current block to the head and starts the counter there at `start`. The insert
  // point is left in the head, for the caller's test; the caller ends its body in `latch()`.
  CountedLoop(llvm::IRBuilder<>& b, const Names& names, llvm::Value* start, const llvm::Twine& counter)
      : b_(b), head_(make(names.head)), body_(make(names.body)), latch_(make(names.latch)), exit_(make(names.exit)) {
    begin(start, counter);
  }

  // Tested at its end (the caller knows it runs at least once): `body` is its head, `exit` where it
  // leaves to; both exist already. The insert point is left at the start of the body.
  CountedLoop(llvm::IRBuilder<>& b, llvm::BasicBlock* body, llvm::BasicBlock* exit, llvm::Value* start,
              const llvm::Twine& counter)
      : b_(b), head_(body), body_(body), exit_(exit) {
    begin(start, counter);
  }

  llvm::PHINode* counter() const { return counter_; }
  llvm::BasicBlock* body() const { return body_; }
  llvm::BasicBlock* latch() const { return latch_; }  // null for a loop tested at its end
  llvm::BasicBlock* exit() const { return exit_; }

  // Closes the loop from the current block: the counter's next value is `next`, and the loop goes
  // back to its head always (`again` null: the head tests) or while `again` holds, else leaves.
  // The insert point is left in the exit; returns the branch back, for its loop metadata.
  llvm::BranchInst* close(llvm::Value* next, llvm::Value* again = nullptr) {
    counter_->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* back = again ? b_.CreateCondBr(again, head_, exit_) : b_.CreateBr(head_);
    b_.SetInsertPoint(exit_);
    return back;
  }

 private:
  llvm::BasicBlock* make(const char* name) {
    return llvm::BasicBlock::Create(b_.getContext(), name, b_.GetInsertBlock()->getParent());
  }
  void begin(llvm::Value* start, const llvm::Twine& counter) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    b_.CreateBr(head_);
    b_.SetInsertPoint(head_);
    counter_ = b_.CreatePHI(start->getType(), 2, counter);
    counter_->addIncoming(start, pre);
  }

  llvm::IRBuilder<>& b_;
  llvm::BasicBlock* head_;
  llvm::BasicBlock* body_;
  llvm::BasicBlock* latch_ = nullptr;
  llvm::BasicBlock* exit_;
  llvm::PHINode* counter_ = nullptr;
};

}  // namespace tack::codegen::detail
