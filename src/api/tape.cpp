// The body of tack::Tape (<tack/autodiff.hpp>) and of Array's gradient methods: the launches recorded with
// their arguments, the copies of arrays a later launch overwrote, and the backward pass over the adjoints.
#include "api/recording.hpp"

#include "ir/visitor.hpp"
#include "runtime/devices/backend.hpp"
#include "runtime/kernels/derived_kernel.hpp"
#include "runtime/kernels/launch.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/memory/array_checks.hpp"

#include <tack/autodiff.hpp>
#include <tack/error.hpp>
#include <tack/lang.hpp>

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tack {
namespace detail {
namespace {

// Guards every array's requires_grad and grad, and every tape's entries.
std::mutex g_mutex;

runtime::ArrayStorage& storage(const Array& a) { return *Access::storage(a); }

// A fresh array of a's dtype, shape and device, zero-filled.
Array zeros_like(const Array& a) { return a.device().zeros(a.dtype(), a.shape()); }

// Queues dst = src (same dtype and size) on their device, in order with the launches around it.
void copy_into(const Array& dst, const Array& src) {
  static const Kernel copy = kernel("tack_tape_copy", [](lang::Array out, lang::Array in) {
    lang::parallel_for(in.size(), [&](lang::Index i) { out[i] = in[i]; });
  });
  // Straight to the runtime: a copy the tape makes is not itself recorded (nor does it take the tape's lock).
  const KernelArg args[] = {KernelArg(dst), KernelArg(src)};
  runtime::launch(*Access::impl(copy), args);
}

// Which parameters a kernel reads (loads) and writes (stores, atomics), from its traced IR.
struct ParamUse {
  std::vector<bool> read, written;
};
ParamUse param_use(const ir::Kernel& k) {
  ParamUse use{std::vector<bool>(k.params.size()), std::vector<bool>(k.params.size())};
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) {
    auto mark = [&](std::vector<bool>& v, const ir::ArrayRef& a) {
      if (a.space == ir::ArrayRef::Space::Param) v[static_cast<std::size_t>(a.index)] = true;
    };
    if (auto l = s.as<ir::Let>())
      if (auto load = l->value.as<ir::Load>()) mark(use.read, load->array);
    if (auto st = s.as<ir::Store>()) mark(use.written, st->array);
    if (auto at = s.as<ir::Atomic>()) mark(use.written, at->array);
  });
  return use;
}

}  // namespace

// One argument of a recorded launch: a scalar's value, or the array (or texture) it used.
struct TapeArg {
  ArgKind kind = ArgKind::Scalar;
  KernelArg scalar;  // kind, dtype, bits and weak of a scalar
  Array array;       // the values the launch read: the argument, or its copy once a later launch overwrote it
  Array original;    // the argument itself, whose gradient the adjoint reads and adds to
  Texture texture;
};

struct TapeEntry {
  std::shared_ptr<runtime::KernelImpl> kernel;
  std::vector<TapeArg> args;
};

struct TapeState {
  std::vector<TapeEntry> entries;
  // By array: the recorded (entry, argument) pairs that read it and still read it in place.
  std::unordered_map<const runtime::ArrayStorage*, std::vector<std::pair<std::size_t, std::size_t>>> readers;
  // By traced IR (which a kernel keeps alive once made): what its parameters do, found once per kernel.
  std::unordered_map<const ir::Kernel*, ParamUse> uses;
};

namespace {
thread_local std::vector<TapeState*> t_recording;
}  // namespace

bool recording() { return !t_recording.empty(); }

void launch_recorded(const std::shared_ptr<runtime::KernelImpl>& impl, std::span<const KernelArg> args) {
  const ir::Kernel& traced = impl->traced();
  bool active = false;
  {
    std::lock_guard lock(g_mutex);
    for (const KernelArg& a : args)
      if (a.kind == ArgKind::Array && !a.spec_only && a.array->valid()) active |= storage(*a.array).requires_grad;
  }
  if (!active || args.size() != traced.params.size()) return runtime::launch(*impl, args);
  TapeState& tape = *t_recording.back();
  const ParamUse* known;
  {
    std::lock_guard lock(g_mutex);
    auto it = tape.uses.find(&traced);
    if (it == tape.uses.end()) it = tape.uses.emplace(&traced, param_use(traced)).first;
    known = &it->second;  // a map's elements stay where they are
  }
  const ParamUse& use = *known;
  {
    // Before the launch overwrites an array an earlier recorded launch read, that launch gets a copy.
    std::lock_guard lock(g_mutex);
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!use.written[i] || args[i].kind != ArgKind::Array) continue;
      runtime::ArrayStorage& s = storage(*args[i].array);
      auto readers = tape.readers.find(&s);
      if (readers != tape.readers.end() && !readers->second.empty()) {
        Array copy = args[i].array->device().empty(s.dtype, s.shape);
        copy_into(copy, *args[i].array);
        for (auto [entry, arg] : readers->second) tape.entries[entry].args[arg].array = copy;
        readers->second.clear();
      }
      if (is_float(s.dtype)) s.requires_grad = true;  // its values now depend on arrays that require one
    }
  }
  runtime::launch(*impl, args);
  std::lock_guard lock(g_mutex);
  TapeEntry entry{impl, {}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    TapeArg t;
    t.kind = args[i].kind;
    if (args[i].kind == ArgKind::Array) {
      t.array = t.original = *args[i].array;
      if (use.read[i]) tape.readers[&storage(t.array)].emplace_back(tape.entries.size(), i);
    } else if (args[i].kind == ArgKind::Texture) {
      t.texture = *args[i].texture;
    } else {
      t.scalar = args[i];
    }
    entry.args.push_back(std::move(t));
  }
  tape.entries.push_back(std::move(entry));
}

}  // namespace detail

// ---- Array's gradient ---------------------------------------------------------------------------------------

void Array::set_requires_grad(bool on) const {
  auto& s = runtime::storage_of(storage_, "set_requires_grad()");
  if (on && !is_float(s.dtype))
    throw InvalidArgument("set_requires_grad on an array of " + std::string(dtype_name(s.dtype)) +
                          ": only f32 and f64 arrays carry a gradient");
  std::lock_guard lock(detail::g_mutex);
  s.requires_grad = on;
}

bool Array::requires_grad() const {
  if (!storage_) return false;
  std::lock_guard lock(detail::g_mutex);
  return storage_->requires_grad;
}

Array Array::grad() const {
  auto& s = runtime::storage_of(storage_, "grad()");
  if (!is_float(s.dtype))
    throw InvalidArgument("grad() of an array of " + std::string(dtype_name(s.dtype)) +
                          ": only f32 and f64 arrays carry a gradient");
  std::lock_guard lock(detail::g_mutex);
  if (!s.grad) s.grad = detail::Access::storage(detail::zeros_like(*this));
  return Array(s.grad);
}

// ---- the Tape -------------------------------------------------------------------------------------------------

Tape::Tape() : state_(std::make_unique<detail::TapeState>()) {}

Tape::~Tape() {
  // A Recording outliving its tape stops recording into it.
  auto& stack = detail::t_recording;
  std::erase(stack, state_.get());
}

Tape::Recording Tape::record() {
  detail::t_recording.push_back(state_.get());
  return Recording(state_.get());
}

void Tape::Recording::stop() {
  if (!state_) return;
  auto& stack = detail::t_recording;
  auto it = std::find(stack.rbegin(), stack.rend(), state_);
  if (it != stack.rend()) stack.erase(std::next(it).base());
  state_ = nullptr;
}

std::size_t Tape::size() const {
  std::lock_guard lock(detail::g_mutex);
  return state_->entries.size();
}

void Tape::reset() {
  std::lock_guard lock(detail::g_mutex);
  state_->entries.clear();
  state_->readers.clear();
}

void Tape::zero() {
  std::vector<Array> grads;
  {
    std::lock_guard lock(detail::g_mutex);
    for (const detail::TapeEntry& e : state_->entries)
      for (const detail::TapeArg& a : e.args)
        if (a.original.valid() && detail::storage(a.original).grad)
          grads.emplace_back(detail::storage(a.original).grad);
  }
  for (Array& g : grads) g.fill(0);
}

void Tape::backward(const Array& loss) {
  if (!loss.valid()) throw InvalidArgument("Tape::backward: the loss is an empty tack::Array");
  Array g = loss.grad();
  g.fill(1);
  backward(std::span<const std::pair<Array, Array>>{});
}

void Tape::backward(std::span<const std::pair<Array, Array>> seeds) {
  for (const auto& [array, seed] : seeds) {
    if (!array.valid() || !seed.valid()) throw InvalidArgument("Tape::backward: a seed of an empty tack::Array");
    if (seed.dtype() != array.dtype() || seed.shape() != array.shape())
      throw InvalidArgument("Tape::backward: a seed must have its array's dtype and shape");
    detail::copy_into(array.grad(), seed);
  }
  // The adjoints are not recorded, even inside a recording.
  std::vector<detail::TapeState*> paused;
  std::swap(paused, detail::t_recording);
  struct Resume {
    std::vector<detail::TapeState*>& stack;
    std::vector<detail::TapeState*>& saved;
    ~Resume() { std::swap(stack, saved); }
  } resume{detail::t_recording, paused};

  std::vector<detail::TapeEntry> entries;
  {
    std::lock_guard lock(detail::g_mutex);
    entries = state_->entries;
  }
  // Arrays that take no gradient get a scratch one for the adjoint to write, made once per backward pass.
  std::unordered_map<const runtime::ArrayStorage*, Array> scratch;
  for (std::size_t e = entries.size(); e-- > 0;) {
    const detail::TapeEntry& entry = entries[e];
    std::vector<KernelArg> args;
    std::vector<Array> grads;
    for (const detail::TapeArg& a : entry.args) {
      if (a.kind == ArgKind::Array) {
        args.emplace_back(a.array);
        if (a.original.requires_grad()) {
          grads.push_back(a.original.grad());
        } else {
          Array& s = scratch[&detail::storage(a.original)];
          if (!s.valid()) s = detail::zeros_like(a.original);
          grads.push_back(s);
        }
      } else if (a.kind == ArgKind::Texture) {
        args.emplace_back(a.texture);
      } else {
        args.push_back(a.scalar);
      }
    }
    for (const Array& g : grads) args.emplace_back(g);
    runtime::launch(*runtime::derived_kernel(entry.kernel, ir::Derivative::Adjoint), args);
  }
}

}  // namespace tack
