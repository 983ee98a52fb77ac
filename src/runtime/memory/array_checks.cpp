// Shape and dtype checks shared by the array constructors.
#include "runtime/memory/array_checks.hpp"

#include <tack/error.hpp>

#include <cstdio>
#include <limits>

namespace tack::runtime {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "{";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "}";
}

std::int64_t checked_count(const std::vector<std::int64_t>& shape, DType dtype, const char* what) {
  if (shape.empty() || shape.size() > 4)
    throw InvalidArgument(std::string(what) + ": arrays have 1 to 4 dimensions, got shape " + shape_text(shape));
  std::int64_t count = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw InvalidArgument(std::string(what) + ": negative extent in shape " + shape_text(shape));
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / d)
      throw InvalidArgument(std::string(what) + ": shape " + shape_text(shape) + " overflows 64 bits");
    count *= d;
  }
  if (count > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(dtype_size(dtype)))
    throw InvalidArgument(std::string(what) + ": shape " + shape_text(shape) + " is too large to address in bytes");
  return count;
}

void check_dtype(const Device& dev, DType dtype, const char* what) {
  if (!dev.capabilities().supports(dtype))
    throw TypeError(std::string(what) + ": " + std::string(dtype_name(dtype)) + " arrays are not supported on " +
                    dev.name());
}

void check_read_dtype(DType dtype, DType as) {
  if (as == dtype || (dtype == DType::Bool && as == DType::U8)) return;
  throw TypeError("reading a " + std::string(dtype_name(dtype)) + " array as " + std::string(dtype_name(as)) +
                  "; ask for the array's own dtype" + (dtype == DType::Bool ? " (or u8, its bytes)" : ""));
}

ArrayStorage& storage_of(const std::shared_ptr<ArrayStorage>& s, const char* what) {
  if (!s) throw InvalidArgument(std::string(what) + " of an empty tack::Array (default-constructed or moved from)");
  return *s;
}

std::string address_text(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(address));
  return text;
}

}  // namespace tack::runtime
