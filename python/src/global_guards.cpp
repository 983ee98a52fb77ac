// Globals never go stale: a Python kernel reads module globals and closure
// cells while it is traced, and those values are baked into its IR. The front
// end hands the kernel the list of what it read (tack/_frontend/guards.py);
// each call compares every entry with what it holds now, by identity, which
// costs a few nanoseconds a global. Where the identity differs (or the value is
// a mutable container, which can change in place) a Python check decides, by
// equality; a value that really changed makes the kernel trace again.
#include "bindings.hpp"

#include "api/frontend.hpp"

#include <Python.h>

#include <memory>
#include <unordered_map>
#include <vector>

namespace tack::python {
namespace {

struct Guard {
  nb::object where;   // a module's __dict__, or a closure cell
  nb::object name;    // the key in `where` (None for a cell)
  nb::object seen;    // the object the trace read
  nb::object record;  // the front end's record, handed to the Python check
  bool deep = false;  // a mutable container: always ask the Python check
};

struct KernelGuards {
  std::weak_ptr<const void> kernel;  // api::watch: an entry whose kernel is gone is dropped
  std::vector<Guard> guards;
  nb::object changed;  // check(record, current) -> bool: whether the value really changed
};

// Kept until exit and never destroyed: its Python objects must not be released
// after the interpreter has finalized. Only touched with the GIL held.
// Keyed by api::kernel_identity.
std::unordered_map<const void*, KernelGuards>& table() {
  static auto* t = new std::unordered_map<const void*, KernelGuards>();
  return *t;
}

// What `where[name]` (or the cell) holds now; null when the name is gone.
PyObject* current_value(const Guard& g) {
  if (PyCell_Check(g.where.ptr())) return PyCell_GET(g.where.ptr());
  return PyDict_GetItemWithError(g.where.ptr(), g.name.ptr());  // borrowed
}

void set_guards(const Kernel& k, const nb::list& records, nb::object changed) {
  const void* id = api::kernel_identity(k);
  auto& t = table();
  if (nb::len(records) == 0) {
    t.erase(id);
    return;
  }
  // Entries of kernels that are gone hold globals alive: drop them as the table grows.
  static std::size_t sweep_at = 64;
  if (t.size() >= sweep_at) {
    std::erase_if(t, [](const auto& kv) { return kv.second.kernel.expired(); });
    sweep_at = 2 * t.size() + 64;
  }
  KernelGuards entry{api::watch(k), {}, std::move(changed)};
  for (nb::handle r : records) {
    // (where, name, seen, deep): see guards.py.
    nb::tuple tup = nb::borrow<nb::tuple>(r);
    entry.guards.push_back({nb::borrow(tup[0]), nb::borrow(tup[1]), nb::borrow(tup[2]), nb::borrow(r),
                            nb::cast<bool>(tup[3])});
  }
  t[id] = std::move(entry);
}

}  // namespace

void check_globals(const Kernel& k) {
  auto& t = table();
  if (t.empty()) return;
  const void* id = api::kernel_identity(k);
  auto it = t.find(id);
  if (it == t.end()) return;
  KernelGuards& entry = it->second;
  if (entry.kernel.lock().get() != id) {  // a dead kernel's entry, maybe at a reused address
    t.erase(it);
    return;
  }
  for (Guard& g : entry.guards) {
    PyObject* now = current_value(g);
    if (!now && PyErr_Occurred()) throw nb::python_error();
    if (now == g.seen.ptr() && !g.deep) continue;
    nb::object now_obj = now ? nb::borrow(now) : nb::none();
    if (!nb::cast<bool>(entry.changed(g.record, now_obj, now != nullptr))) {
      if (!g.deep) g.seen = now_obj;  // equal, another object: compare with this one from now on
      continue;
    }
    // Changed: trace again at this call; the new trace installs its own guards.
    t.erase(it);
    api::retrace(k);
    return;
  }
}

void bind_global_guards(nb::module_& m) {
  m.def("_set_global_guards", &set_guards, nb::arg("kernel"), nb::arg("records"), nb::arg("changed"),
        "Called by the front end after a trace: the globals and cells the kernel read (tack/_frontend/guards.py)");
}

}  // namespace tack::python
