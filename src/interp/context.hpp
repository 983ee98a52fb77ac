// The state of one interpreter run: the kernel, its arguments, and the per-lane values of the current batch.
#pragma once

#include "interp/interpreter.hpp"
#include "interp/lanes.hpp"
#include "ir/check.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tack::interp {

struct Context {
  Context(const ir::Kernel& k, std::span<const Arg> a)
      : kernel(k), args(a), lets(k.lets.size() * kMaxLanes), vars(k.vars.size() * kMaxLanes), shared(k.shared.size()) {
    for (const ir::LocalArray& a : k.locals) locals.emplace_back(static_cast<std::size_t>(a.count) * kMaxLanes);
  }

  const ir::Kernel& kernel;
  std::span<const Arg> args;
  std::vector<ir::Bits> lets;  // lets[id * kMaxLanes + lane]
  std::vector<ir::Bits> vars;  // vars[id * kMaxLanes + lane]

  // Parallel launches: loop_index[dim][lane] for the current batch.
  std::vector<std::array<std::int64_t, kMaxLanes>> loop_index;

  // Workgroup launches: the current group, its shared arrays (8-byte aligned), and the mask of all its lanes.
  bool workgroup = false;
  std::int64_t group_id = 0;
  std::int64_t num_groups = 0;
  std::vector<std::vector<std::uint64_t>> shared;
  Mask group_mask;

  // Each lane's local arrays: locals[array][element * kMaxLanes + lane], in canonical Bits of their dtype.
  std::vector<std::vector<ir::Bits>> locals;

  // Lanes that executed a Break in each enclosing loop, innermost last.
  std::vector<Mask> breaks;
  // The statement being executed, for error messages.
  const ir::SourceLoc* loc = nullptr;
  Scratch scratch;

  ir::Bits* let(int id) {
    TACK_CHECK(id >= 0 && static_cast<std::size_t>(id) < kernel.lets.size());
    return &lets[static_cast<std::size_t>(id) * kMaxLanes];
  }
  ir::Bits* var(int id) {
    TACK_CHECK(id >= 0 && static_cast<std::size_t>(id) < kernel.vars.size());
    return &vars[static_cast<std::size_t>(id) * kMaxLanes];
  }
  const Arg& arg(int param) const {
    TACK_CHECK(param >= 0 && static_cast<std::size_t>(param) < args.size());
    return args[static_cast<std::size_t>(param)];
  }
};

}  // namespace tack::interp
