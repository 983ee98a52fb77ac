// The replaced global operator new behind alloc_count.hpp. A stack trace per
// allocation while armed is slow, but only the warm-launch tests arm it.
#include "support/alloc_count.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace alloc_count {
namespace {

thread_local const char* t_excluded = nullptr;
thread_local bool t_armed = false;
thread_local bool t_inside = false;
thread_local int t_count = 0;
thread_local void* t_first_caller = nullptr;

bool from_excluded(void** frames, int n) {
  for (int i = 0; i < n; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) && info.dli_fname && std::strstr(info.dli_fname, t_excluded)) return true;
  }
  return false;
}

}  // namespace

void note() {
  if (!t_armed || t_inside) return;
  t_inside = true;
  void* frames[48];
  const int n = backtrace(frames, 48);
  if (!from_excluded(frames, n) && t_count++ == 0) t_first_caller = n > 2 ? frames[2] : nullptr;
  t_inside = false;
}

void arm(const char* excluded_library) {
  t_excluded = excluded_library;
  t_count = 0;
  t_first_caller = nullptr;
  t_armed = true;
}

int disarm() {
  t_armed = false;
  return t_count;
}

std::string first_caller() {
  Dl_info info{};
  if (t_first_caller && dladdr(t_first_caller, &info) && info.dli_sname) return info.dli_sname;
  return "?";
}

}  // namespace alloc_count

void* operator new(std::size_t n) {
  alloc_count::note();
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
