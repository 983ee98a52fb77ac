// Per-launch print arrays: allocation, binding, read-back and the lines on stderr.
#include "runtime/kernels/print_capture.hpp"

#include "ir/check.hpp"
#include "support/env.hpp"

#include <tack/error.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <numeric>

#include <unistd.h>

namespace tack::runtime {
namespace {

constexpr std::int64_t kDefaultLines = 4096;
constexpr std::int64_t kMaxLines = std::int64_t{1} << 24;

template <class F>
std::string float_text(F f) {
  if (std::isnan(f)) return "nan";  // one spelling: the sign and payload of a NaN differ between devices
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  return std::string(buf, r.ptr);
}

// The format with its {} replaced by the values and {{ }} by braces.
std::string fill(const std::string& format, const std::vector<std::string>& values) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    const char after = i + 1 < format.size() ? format[i + 1] : '\0';
    if ((c == '{' && after == '{') || (c == '}' && after == '}')) {
      out += c;
      ++i;
    } else if (c == '{' && after == '}' && next < values.size()) {
      out += values[next++];
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

void write_stderr(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(2, text.data() + done, text.size() - done);
    if (n <= 0) return;  // stderr closed or failing: the lines are lost, the kernel's results are not
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::int64_t print_capacity() {
  const std::optional<std::string> value = support::env_text("TACK_PRINT_LINES");
  if (!value) return kDefaultLines;
  std::int64_t n = 0;
  bool ok = true;
  for (const char* p = value->c_str(); *p && ok; ++p) {
    ok = *p >= '0' && *p <= '9' && n <= kMaxLines;
    n = n * 10 + (*p - '0');
  }
  if (!ok || n > kMaxLines)
    throw InvalidArgument("TACK_PRINT_LINES=\"" + *value +
                          "\" is not a number of lines: expected an integer from 0 to " + std::to_string(kMaxLines));
  return n;
}

std::string format_print_value(DType t, std::uint64_t bits) {
  const auto w = static_cast<std::uint32_t>(bits);
  switch (t) {
    case DType::Bool: return w ? "true" : "false";
    case DType::I8: return std::to_string(static_cast<std::int8_t>(w));
    case DType::U8: return std::to_string(static_cast<std::uint8_t>(w));
    case DType::I16: return std::to_string(static_cast<std::int16_t>(w));
    case DType::U16: return std::to_string(static_cast<std::uint16_t>(w));
    case DType::I32: return std::to_string(static_cast<std::int32_t>(w));
    case DType::U32: return std::to_string(w);
    case DType::I64: return std::to_string(static_cast<std::int64_t>(bits));
    case DType::U64: return std::to_string(bits);
    case DType::F32: {
      float f;
      std::memcpy(&f, &w, sizeof f);
      return float_text(f);
    }
    case DType::F64: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return float_text(d);
    }
  }
  return "?";
}

PrintCapture::PrintCapture(std::shared_ptr<const CompiledVariant> v, ResolvedCall& call)
    : variant_(std::move(v)), arg_count_(call.count) {
  const abi::PrintLayout& layout = variant_->prints;
  if (!layout.active()) return;
  const std::size_t params = variant_->typed.params.size();
  if (params > static_cast<std::size_t>(kMaxKernelParams))
    throw InvalidArgument("kernel '" + variant_->typed.name + "': print needs " + std::to_string(params - call.count) +
                          " more argument slots than the call's " + std::to_string(call.count) + ", beyond the " +
                          std::to_string(kMaxKernelParams) + " a kernel may have; pass fewer arguments");
  capacity_ = print_capacity();
  auto bind = [&](int param, DType dtype, std::int64_t size) {
    auto a = std::make_unique<ArrayStorage>();
    a->backend = call.backend;
    // Only the counter must start at zero; a record is read only where the counter says it was written.
    a->buffer =
        call.backend->allocate(static_cast<std::size_t>(std::max<std::int64_t>(size, 1)) * dtype_size(dtype), true);
    a->dtype = dtype;
    a->shape = {size};
    a->size = size;
    BoundArg& b = call.args[static_cast<std::size_t>(param)];
    b = BoundArg{};
    b.kind = ir::ParamKind::Array;
    b.array = a.get();
    arrays_.push_back(std::move(a));
  };
  bind(layout.words_param, DType::U32, 1 + capacity_ * layout.words_width);
  for (const abi::PrintColumn& c : layout.columns) bind(c.param, c.dtype, capacity_ * c.width);
  arg_count_ = params;
}

void PrintCapture::flush() {
  if (!active()) return;
  const abi::PrintLayout& layout = variant_->prints;
  const std::int64_t words_size = arrays_[0]->size;
  std::vector<std::uint32_t> words(static_cast<std::size_t>(words_size));
  arrays_[0]->buffer->read(0, words.data(), words.size() * sizeof(std::uint32_t));  // waits for the launch
  const std::int64_t attempted = words[0];
  if (attempted == 0) return;
  const std::int64_t kept = std::min(attempted, capacity_);
  std::vector<std::vector<std::uint64_t>> columns;
  for (std::size_t c = 0; c < layout.columns.size(); ++c) {
    const ArrayStorage& a = *arrays_[c + 1];
    const std::size_t elem = dtype_size(a.dtype);
    const std::size_t n = static_cast<std::size_t>(kept * layout.columns[c].width);
    std::vector<std::uint64_t> bits(n);
    std::vector<unsigned char> raw(n * elem);
    if (n) a.buffer->read(0, raw.data(), raw.size());
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t b = 0;
      std::memcpy(&b, raw.data() + i * elem, elem);  // little-endian hosts only, as everywhere in Tack
      bits[i] = b;
    }
    columns.push_back(std::move(bits));
  }
  const std::size_t width = static_cast<std::size_t>(layout.words_width);
  auto record = [&](std::int64_t r) { return words.data() + 1 + static_cast<std::size_t>(r) * width; };
  auto flat = [&](std::int64_t r) {
    const std::uint32_t* w = record(r);
    return static_cast<std::uint64_t>(w[0]) | (static_cast<std::uint64_t>(w[1]) << 32);
  };
  // Slots claimed by one work-item increase in program order, so a stable sort keeps its lines in order.
  std::vector<std::int64_t> order(static_cast<std::size_t>(kept));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return flat(a) < flat(b); });
  std::string text;
  std::vector<std::string> values;
  for (std::int64_t r : order) {
    const std::uint32_t* w = record(r);
    TACK_CHECK(w[2] < layout.sites.size());
    const abi::PrintSite& site = layout.sites[w[2]];
    values.clear();
    for (const abi::PrintArg& a : site.args) {
      std::uint64_t bits = 0;
      if (a.column == 0) {
        bits = w[a.offset];
      } else {
        const auto& col = layout.columns[static_cast<std::size_t>(a.column - 1)];
        bits = columns[static_cast<std::size_t>(a.column - 1)][static_cast<std::size_t>(r * col.width + a.offset)];
      }
      values.push_back(format_print_value(a.dtype, bits));
    }
    text += fill(site.format, values);
    text += '\n';
  }
  if (attempted > kept)
    text += "tack: kernel '" + variant_->typed.name + "' printed " + std::to_string(attempted - kept) +
            " more lines than the " + std::to_string(capacity_) +
            " kept per launch; they were lost (set TACK_PRINT_LINES to keep more)\n";
  write_stderr(text);
}

namespace {
std::mutex g_pending_mutex;
std::vector<PrintCapture> g_pending;  // in launch order
// Whether g_pending may hold a launch: lets every wait of a program that never prints skip the lock.
std::atomic<bool> g_any_pending{false};
}  // namespace

void defer_prints(PrintCapture capture) {
  std::lock_guard lock(g_pending_mutex);
  g_pending.push_back(std::move(capture));
  g_any_pending.store(true, std::memory_order_release);
}

void flush_prints() {
  if (!g_any_pending.load(std::memory_order_acquire)) return;
  std::vector<PrintCapture> pending;
  {
    std::lock_guard lock(g_pending_mutex);
    pending.swap(g_pending);
    g_any_pending.store(false, std::memory_order_release);
  }
  std::exception_ptr error;
  for (PrintCapture& p : pending) {
    try {
      p.flush();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tack::runtime
