// Host memory with inaccessible guard regions around it, for tests that must
// prove code never touches memory outside an array (masked-off SIMD lanes,
// bounds). The data sits flush against the guard after it, and the guards are
// large (megabytes), so a stray access past either end lands in a guard, not in
// whatever the heap keeps there; a fault in a guard prints which block and how
// far past its end and exits the test process with status 3, so the test fails
// with that message instead of passing because the stray access happened to hit
// mapped memory. Wrap the data with tack::array_from_ptr (cpu, interp).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tack_test {

class GuardedMemory {
 public:
  // `bytes` of zeroed, writable memory with `guard` bytes of PROT_NONE before and after it.
  GuardedMemory(std::string name, std::size_t bytes, std::size_t guard) : name_(std::move(name)), bytes_(bytes) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t data_pages = (bytes + page - 1) / page;
    guard_ = (guard + page - 1) / page * page;
    total_ = guard_ * 2 + data_pages * page;
    base_ = static_cast<char*>(::mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) std::abort();
    char* pages = base_ + guard_;
    if (::mprotect(pages, data_pages * page, PROT_READ | PROT_WRITE) != 0) std::abort();
    data_ = pages + data_pages * page - bytes;  // flush against the guard after it
    install(this);
  }
  ~GuardedMemory() {
    uninstall(this);
    ::munmap(base_, total_);
  }
  GuardedMemory(const GuardedMemory&) = delete;
  GuardedMemory& operator=(const GuardedMemory&) = delete;

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  static constexpr int kSlots = 8;
  static GuardedMemory** slots() {
    static GuardedMemory* s[kSlots] = {};
    return s;
  }
  static struct sigaction& previous() {
    static struct sigaction p {};
    return p;
  }
  static int& live() {
    static int n = 0;
    return n;
  }

  static void install(GuardedMemory* m) {
    for (int i = 0; i < kSlots; ++i)
      if (!slots()[i]) {
        slots()[i] = m;
        break;
      }
    if (live()++ == 0) {
      struct sigaction action {};
      action.sa_sigaction = on_fault;
      action.sa_flags = SA_SIGINFO;
      sigemptyset(&action.sa_mask);
      ::sigaction(SIGSEGV, &action, &previous());
    }
  }
  static void uninstall(GuardedMemory* m) {
    for (int i = 0; i < kSlots; ++i)
      if (slots()[i] == m) slots()[i] = nullptr;
    if (--live() == 0) ::sigaction(SIGSEGV, &previous(), nullptr);
  }

  // Async-signal-safe: snprintf into a stack buffer is not formally, but the process ends here anyway.
  static void on_fault(int sig, siginfo_t* info, void* context) {
    const char* at = static_cast<const char*>(info->si_addr);
    for (int i = 0; i < kSlots; ++i) {
      const GuardedMemory* m = slots()[i];
      if (!m || at < m->base_ || at >= m->base_ + m->total_) continue;
      char text[256];
      const long long past = at >= m->data_ ? static_cast<long long>(at - (m->data_ + m->bytes_))
                                            : static_cast<long long>(m->data_ - at);
      const int n = std::snprintf(text, sizeof text,
                                  "\nGuardedMemory: a stray access to guard memory of '%s', %lld bytes %s it\n",
                                  m->name_.c_str(), past, at >= m->data_ ? "past the end of" : "before");
      if (n > 0) (void)!::write(2, text, static_cast<std::size_t>(n));
      ::_exit(3);
    }
    // Not ours: let the handler before us (or the default action) have it.
    ::sigaction(SIGSEGV, &previous(), nullptr);
    (void)sig;
    (void)context;
  }

  std::string name_;
  std::size_t bytes_ = 0, guard_ = 0, total_ = 0;
  char* base_ = nullptr;
  char* data_ = nullptr;
};

}  // namespace tack_test
