// The disk-cache payload of compiled GPU kernels (cuda's PTX, hip's code
// objects, opencl's program binaries): what is stored is what is loaded, for
// any bytes, and a payload of another shape is refused rather than loaded.
#include "runtime/cache/cached_binary.hpp"

#include <gtest/gtest.h>

#include <string>

using tack::runtime::decode_cached_binary;
using tack::runtime::encode_cached_binary;

TEST(CachedBinary, RoundTripsTheEntryAndEveryByteOfTheImage) {
  std::string image =
      "\x7f"
      "ELF\n\nENTRY:not_this\n";
  image.push_back('\0');
  image += "tail\xff";
  const std::string payload = encode_cached_binary("tack_kernel_saxpy__f32", image);
  EXPECT_EQ(payload.rfind("ENTRY:tack_kernel_saxpy__f32\n", 0), 0u);
  const auto decoded = decode_cached_binary(payload);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->entry, "tack_kernel_saxpy__f32");
  EXPECT_EQ(decoded->image, image);
}

TEST(CachedBinary, AnEmptyImageRoundTrips) {
  const auto decoded = decode_cached_binary(encode_cached_binary("k", ""));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->entry, "k");
  EXPECT_EQ(decoded->image, "");
}

TEST(CachedBinary, MalformedPayloadsAreRefused) {
  EXPECT_FALSE(decode_cached_binary(""));
  EXPECT_FALSE(decode_cached_binary("ENTRY:k"));           // no end of the name line
  EXPECT_FALSE(decode_cached_binary("ENTRY:\nimage"));     // no name
  EXPECT_FALSE(decode_cached_binary("ENTRY k\nimage"));    // another tag
  EXPECT_FALSE(decode_cached_binary("entry:k\nimage"));    // tags are case-sensitive
  EXPECT_FALSE(decode_cached_binary("\nENTRY:k\nimage"));  // not at the start
}
