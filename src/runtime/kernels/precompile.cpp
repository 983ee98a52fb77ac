// Compiling ahead of the first call. A variant made here is the one a later
// call with arguments of the same kinds, dtypes and ranks finds in the
// backend's memory cache.
#include "runtime/kernels/precompile.hpp"

#include "runtime/memory/access.hpp"
#include "runtime/kernels/resolve_variant.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace tack::runtime {

const std::shared_ptr<Backend>& precompile_backend(const Device& device) {
  if (!detail::Access::backend(device))
    throw InvalidArgument("precompile on an empty tack::Device (default-constructed)");
  return detail::Access::backend(device);
}

void precompile_call(KernelImpl& impl, const std::shared_ptr<Backend>& backend, std::span<const KernelArg> args) {
  ResolvedCall call = check_call(impl, args, backend, true);
  resolve_variant(impl, *call.backend, call.signature);
}

void precompile_all(const std::shared_ptr<Backend>& backend, std::span<const PrecompileRequest> requests,
                    int threads) {
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
        precompile_call(*detail::Access::impl(requests[i].kernel), backend, requests[i].args);
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

}  // namespace tack::runtime
