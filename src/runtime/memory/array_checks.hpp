// The checks every array constructor makes on a shape and a dtype, with the
// messages users see.
#pragma once

#include <tack/device.hpp>
#include <tack/dtype.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tack::runtime {

struct ArrayStorage;

// "{2, 3}".
std::string shape_text(const std::vector<std::int64_t>& shape);
// A texture's or an image limit's "{64, 32, 16}".
inline std::string shape_text(const std::array<std::int64_t, 3>& shape) {
  return shape_text({shape.begin(), shape.end()});
}
// The element count of a valid shape (1 to 4 extents, none negative, bytes
// addressable in 64 bits); InvalidArgument naming `what` otherwise.
std::int64_t checked_count(const std::vector<std::int64_t>& shape, DType dtype, const char* what);
// TypeError unless the device holds arrays of dtype.
void check_dtype(const Device& device, DType dtype, const char* what);
// TypeError unless an array of `dtype` may be read into host memory of `as`: its own
// dtype, or u8 for a bool array (its bytes; std::vector<bool> packs bits).
void check_read_dtype(DType dtype, DType as);
// An array's storage; InvalidArgument "<what> of an empty tack::Array ..." when there is none.
ArrayStorage& storage_of(const std::shared_ptr<ArrayStorage>& storage, const char* what);
// "0x7f3a00000000", for messages about addresses.
std::string address_text(std::uint64_t address);

}  // namespace tack::runtime
