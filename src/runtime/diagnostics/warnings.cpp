// The process-wide warning sink: stderr, or a handler installed by the user.
#include "runtime/diagnostics/warnings.hpp"

#include <cstdio>
#include <mutex>
#include <utility>

namespace tack::runtime {
namespace {

struct Sink {
  std::mutex mutex;  // serializes handler calls and swaps
  std::function<void(const std::string&)> handler;
};

Sink& sink() {
  static Sink* s = new Sink;  // never destroyed: warnings may come during static destruction
  return *s;
}

}  // namespace

void warn(const std::string& message) noexcept {
  try {
    Sink& s = sink();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.handler) {
      s.handler(message);
      return;
    }
    // One fwrite, so lines from several threads or processes do not interleave.
    std::string line = "tack: warning: " + message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  } catch (...) {
    // A warning must never turn into a failure (out of memory, a throwing handler).
  }
}

void set_warning_handler(std::function<void(const std::string&)> handler) {
  Sink& s = sink();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.handler = std::move(handler);
}

}  // namespace tack::runtime
