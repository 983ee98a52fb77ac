// Compiling ahead of the first call: Kernel::precompile_args and
// tack::precompile. A variant made here is the one a later call with arguments
// of the same kinds, dtypes and ranks finds in the backend's memory cache.
#include "runtime/memory/access.hpp"
#include "runtime/kernels/resolve_variant.hpp"

#include <tack/compile.hpp>
#include <tack/error.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace tack {
namespace {

void precompile_one(const Kernel& k, const std::shared_ptr<runtime::Backend>& backend,
                    std::span<const KernelArg> args) {
  runtime::ResolvedCall call = runtime::check_call(*detail::Access::impl(k), args, backend, true);
  runtime::resolve_variant(*detail::Access::impl(k), *call.backend, call.signature);
}

const std::shared_ptr<runtime::Backend>& backend_of(const Device& device) {
  if (!detail::Access::backend(device))
    throw InvalidArgument("precompile on an empty tack::Device (default-constructed)");
  return detail::Access::backend(device);
}

}  // namespace

void Kernel::precompile_args(const Device& device, std::span<const KernelArg> args) const {
  if (!impl_) throw InvalidArgument("precompile of an empty tack::Kernel (default-constructed)");
  precompile_one(*this, backend_of(device), args);
}

void precompile(const Device& device, std::span<const PrecompileRequest> requests, int threads) {
  const std::shared_ptr<runtime::Backend>& backend = backend_of(device);
  if (threads < 0)
    throw InvalidArgument("precompile: threads must be 0 (one per core) or more, got " + std::to_string(threads));
  std::vector<std::exception_ptr> errors(requests.size());
  // Traces first, on this thread: they are cheap, and a Python kernel's needs the interpreter.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    try {
      if (!detail::Access::impl(requests[i].kernel))
        throw InvalidArgument("precompile request " + std::to_string(i) + ": an empty tack::Kernel");
      detail::Access::impl(requests[i].kernel)->traced();
    } catch (...) {
      errors[i] = std::current_exception();
    }
  }
  std::size_t workers =
      threads > 0 ? static_cast<std::size_t>(threads) : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  workers = std::min(workers, requests.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < requests.size();) {
      if (errors[i]) continue;
      try {
        precompile_one(requests[i].kernel, backend, requests[i].args);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace tack
