// The state of the kernel being traced on this thread: the IR built so far, the
// open statement blocks and what is in scope. Every tack::lang call appends to it.
#pragma once

#include "ir/ir.hpp"
#include "ir/node_set.hpp"
#include "support/no_copy.hpp"

#include <tack/lang.hpp>

#include <source_location>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tack::lang::detail {

ir::SourceLoc to_loc(const std::source_location& l);

// For front ends other than C++ (the Python package): while an override is set
// on this thread, every traced call takes its file and line instead of the C++
// caller's. `file` must live as long as the process: see intern_file_name.
const char* intern_file_name(std::string_view file);
void set_location_override(const char* file, int line);  // file == nullptr clears it
class LocationOverride : support::NoCopy {
 public:
  LocationOverride(const char* file, int line);
  ~LocationOverride();

 private:
  ir::SourceLoc previous_;
};

class TraceContext : support::NoCopy {
 public:
  explicit TraceContext(ir::Kernel& kernel);
  ~TraceContext();

  // The context of the trace running on this thread; throws if there is none.
  static TraceContext& current(const char* what);
  // The same, or nullptr outside a trace.
  static TraceContext* active();

  // Records the block an expression was computed in, so that using it after
  // that block ended (a C++ Value assigned inside an if_ body) is an error.
  void note_origin(const ir::ExprNode* e);

  ir::Kernel& kernel() { return kernel_; }

  // Appends a statement to the innermost open block, after checking that every
  // Let and Var it reads is in scope there.
  void emit(ir::Stmt s);
  int new_let(const ir::SourceLoc& loc);
  int new_var(const ir::SourceLoc& loc);
  // Binds e to a fresh Let and returns a reference to it.
  Value bind(ir::Expr e, const ir::SourceLoc& loc);

  void open_block();
  ir::Stmt close_block(const ir::SourceLoc& loc);
  // The innermost open block, unique in the trace (-1 outside a kernel's body).
  int block_id() const { return blocks_.empty() ? -1 : blocks_.back().id; }

  // Statements may only appear inside the kernel's parallel_for / workgroup_for.
  void require_body(const char* what, const ir::SourceLoc& loc);
  // Reading or assigning Var `id` (verb: "uses", "assigns"): it must belong to
  // this trace and the block that declared it must still be open.
  void require_live_var(int id, const char* verb, const ir::SourceLoc& loc) const;
  void begin_launch(const char* what, const ir::SourceLoc& loc);
  void end_launch();
  bool launch_seen() const { return launch_seen_; }
  bool in_workgroup() const { return in_workgroup_; }
  void set_in_workgroup(bool b) { in_workgroup_ = b; }

  int loop_depth = 0;
  // The line of the most recent statement that knew its line.
  ir::SourceLoc last_loc() const { return last_loc_; }

  [[noreturn]] void fail(const ir::SourceLoc& loc, const std::string& message) const;

 private:
  void check_scope(const ir::Expr& e, const ir::SourceLoc& use) const;
  const std::pair<int, ir::SourceLoc>* self_origin(const ir::ExprNode* e) const;

  struct Scope {
    int id;
    std::vector<ir::Stmt> stmts;
    std::vector<int> lets;
    std::vector<int> vars;
  };
  ir::Kernel& kernel_;
  std::vector<Scope> blocks_;
  std::vector<bool> let_live_, var_live_, scope_live_;
  mutable ir::NodeSet scope_seen_;  // check_scope's, reused
  mutable std::vector<ir::Expr> scope_stack_;
  std::unordered_map<const ir::ExprNode*, std::pair<int, ir::SourceLoc>> origin_;
  std::vector<ir::SourceLoc> let_loc_, var_loc_;
  ir::SourceLoc last_loc_;
  bool in_body_ = false;
  bool launch_seen_ = false;
  bool in_workgroup_ = false;
  TraceContext* previous_;
};

}  // namespace tack::lang::detail
