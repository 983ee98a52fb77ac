// Remapping a twin kernel's lines in an error message (see own_lines.hpp). Runs only
// on the error path: it specializes the caller's kernel again to find its own lines.
#include "runtime/kernels/own_lines.hpp"

#include "ir/visitor.hpp"
#include "runtime/kernels/resolve_variant.hpp"

#include <tack/error.hpp>

#include <exception>
#include <map>
#include <string>
#include <vector>

namespace tack::runtime {
namespace {

using LineMap = std::map<std::string, std::string>;

void pair_up(const ir::SourceLoc& theirs, const ir::SourceLoc& ours, LineMap& map) {
  std::string a = theirs.str(), b = ours.str();
  if (!a.empty() && a != b) map.emplace(std::move(a), std::move(b));
}

std::vector<ir::Stmt> statements(const ir::Kernel& k) {
  std::vector<ir::Stmt> out;
  ir::for_each_stmt(k.body, [&](const ir::Stmt& s) { out.push_back(s); });
  return out;
}

// The twin's locations mapped to ours, or false when the two IRs differ in shape.
bool match(const CompiledVariant& v, const passes::Specialized& own, LineMap& map) {
  if (v.restored) return false;  // from the front index: no body, and no lines in what it raises
  const std::vector<ir::Stmt> theirs = statements(v.typed), ours = statements(own.kernel);
  const std::vector<abi::CheckedAccess>& sites = own.checked_sites;
  if (theirs.size() != ours.size() || v.debug_sites.size() != sites.size()) return false;
  pair_up(v.typed.loc, own.kernel.loc, map);
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    if (theirs[i]->kind != ours[i]->kind) return false;
    pair_up(theirs[i]->loc, ours[i]->loc, map);
  }
  for (std::size_t i = 0; i < sites.size(); ++i) pair_up(v.debug_sites[i].loc, sites[i].loc, map);
  return true;
}

// One pass over the message, replacing the longest location that starts at each
// position, so that a replacement is never replaced again.
std::string remap(const std::string& msg, const LineMap& map) {
  std::string out;
  for (std::size_t i = 0; i < msg.size();) {
    const std::string* from = nullptr;
    const std::string* to = nullptr;
    for (const auto& [a, b] : map)
      if (msg.compare(i, a.size(), a) == 0 && (!from || a.size() > from->size())) {
        from = &a;
        to = &b;
      }
    if (from) {
      out += *to;
      i += from->size();
    } else {
      out += msg[i++];
    }
  }
  return out;
}

}  // namespace

void rethrow_with_own_lines(KernelImpl& impl, const Backend& backend, const Signature& sig, const CompiledVariant& v) {
  const std::exception_ptr original = std::current_exception();
  std::string msg;
  LineMap map;
  try {
    std::rethrow_exception(original);
  } catch (const Error& e) {
    msg = e.what();
  }
  try {
    // Typed IR only: nothing lowered, and the specialize observer does not see it.
    if (!match(v, specialize(impl, backend, sig, {}, false), map)) std::rethrow_exception(original);
  } catch (const Error&) {
    std::rethrow_exception(original);  // the original error is the one to report
  }
  msg = remap(msg, map);
  try {
    std::rethrow_exception(original);
  } catch (const IndexError&) {
    throw IndexError(msg);
  } catch (const InvalidArgument&) {
    throw InvalidArgument(msg);
  } catch (const TypeError&) {
    throw TypeError(msg);
  } catch (const CompileError&) {
    throw CompileError(msg);
  } catch (const BackendError&) {
    throw BackendError(msg);
  } catch (const BackendUnavailable&) {
    throw BackendUnavailable(msg);
  } catch (const Error&) {
    throw Error(msg);
  }
}

}  // namespace tack::runtime
