// The replaced malloc family and global operator new behind alloc_count.hpp.
// malloc and its relatives are defined here, in the executable, so every
// library's calls bind to them; they forward to glibc's own entry points
// (__libc_malloc & co.), whose blocks glibc's free releases. While armed, each
// allocation on any thread takes a stack trace (slow, but only the warm-launch
// tests arm it) to leave out the excluded library's.
#include "support/alloc_count.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_MEMORY__)
#define TACK_ALLOC_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TACK_ALLOC_COUNT_MALLOC 0
#endif
#endif
#ifndef TACK_ALLOC_COUNT_MALLOC
#define TACK_ALLOC_COUNT_MALLOC 1
#endif

namespace alloc_count {
namespace {

constexpr int kFrames = 48;
constexpr int kCallerFrames = 4;  // kept for first_caller()

std::atomic<bool> g_armed{false};
std::atomic<const char*> g_excluded{nullptr};
std::atomic<int> g_count{0};
std::atomic<bool> g_have_first{false};
void* g_first[kCallerFrames] = {};   // written once, by the thread that set g_have_first
thread_local bool t_inside = false;  // this thread is in note(): its own allocations are not counted

bool from_excluded(void** frames, int n, const char* excluded) {
  for (int i = 0; i < n; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) && info.dli_fname && std::strstr(info.dli_fname, excluded)) return true;
  }
  return false;
}

}  // namespace

void note() {
  if (!g_armed.load(std::memory_order_acquire) || t_inside) return;
  t_inside = true;
  void* frames[kFrames];
  const int n = backtrace(frames, kFrames);
  if (!from_excluded(frames, n, g_excluded.load())) {
    g_count.fetch_add(1);
    if (!g_have_first.exchange(true)) {
      // frames[0] is note(), frames[1] the allocation function; the callers follow.
      for (int i = 0; i < kCallerFrames && i + 2 < n; ++i) g_first[i] = frames[i + 2];
    }
  }
  t_inside = false;
}

void arm(const char* excluded_library) {
  void* warm[2];
  backtrace(warm, 2);  // its first call loads libgcc_s: not while armed
  g_excluded.store(excluded_library);
  g_count.store(0);
  g_have_first.store(false);
  for (void*& f : g_first) f = nullptr;
  g_armed.store(true, std::memory_order_release);
}

int disarm() {
  g_armed.store(false, std::memory_order_release);
  return g_count.load();
}

std::string first_caller() {
  std::string out;
  for (void* f : g_first) {
    if (!f) break;
    Dl_info info{};
    std::string name = "?";
    if (dladdr(f, &info) && info.dli_sname) {
      name = info.dli_sname;
    } else if (info.dli_fname) {  // a symbol the file does not export: the file and the offset
      const char* slash = std::strrchr(info.dli_fname, '/');
      char offset[32];
      std::snprintf(offset, sizeof offset, "+0x%zx",
                    static_cast<std::size_t>(static_cast<char*>(f) - static_cast<char*>(info.dli_fbase)));
      name = std::string(slash ? slash + 1 : info.dli_fname) + offset;
    }
    out += out.empty() ? name : " < " + name;
  }
  return out.empty() ? "?" : out;
}

bool counts_malloc() { return TACK_ALLOC_COUNT_MALLOC != 0; }

std::string self_check(const char* excluded_library) {
  std::string bad;
  auto expect = [&](const char* what, int want, int got) {
    if (got != want)
      bad += std::string(bad.empty() ? "" : "; ") + what + ": " + std::to_string(got) + " counted, not " +
             std::to_string(want);
  };
  // Through volatile pointers, so the compiler cannot drop the pairs.
  void* (*volatile allocate)(std::size_t) = std::malloc;
  void (*volatile release)(void*) = std::free;
  expect("a new std::vector<int>(3) (the vector and its elements)", 2,
         count_in(excluded_library, [] { delete new std::vector<int>(3); }));
  expect("an aligned operator new", 1, count_in(excluded_library, [] {
           ::operator delete (::operator new (64, std::align_val_t{64}), std::align_val_t{64});
         }));
  if (counts_malloc()) expect("a malloc", 1, count_in(excluded_library, [&] { release(allocate(16)); }));
  // Another thread, made before arming, allocates while armed.
  std::atomic<int> step{0};
  std::thread other([&] {
    while (step.load() != 1) std::this_thread::yield();
    if (counts_malloc())
      release(allocate(16));
    else
      ::operator delete(::operator new(16));
    step.store(2);
  });
  const int on_the_other_thread = count_in(excluded_library, [&] {
    step.store(1);
    while (step.load() != 2) std::this_thread::yield();
  });
  other.join();
  expect("an allocation on another thread", 1, on_the_other_thread);
  return bad;
}

}  // namespace alloc_count

#if TACK_ALLOC_COUNT_MALLOC

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);

void* malloc(std::size_t n) {
  alloc_count::note();
  return __libc_malloc(n);
}
void* calloc(std::size_t count, std::size_t n) {
  alloc_count::note();
  return __libc_calloc(count, n);
}
void* realloc(void* p, std::size_t n) {
  if (n) alloc_count::note();
  return __libc_realloc(p, n);
}
void* memalign(std::size_t alignment, std::size_t n) {
  alloc_count::note();
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  alloc_count::note();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  alloc_count::note();
  void* p = __libc_memalign(alignment, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"

// operator new ends in malloc or aligned_alloc above, which count it.
#define TACK_NOTE_NEW()
#else
#define TACK_NOTE_NEW() alloc_count::note()
#endif

void* operator new(std::size_t n) {
  TACK_NOTE_NEW();
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  TACK_NOTE_NEW();
  const auto alignment = static_cast<std::size_t>(a);
  // aligned_alloc wants a size that is a multiple of the alignment.
  if (void* p = std::aligned_alloc(alignment, ((n ? n : 1) + alignment - 1) / alignment * alignment)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
