// Array::fill on the host devices: the pattern fill over the CPU's pool writes every element, across block
// and pattern edges, for every element size, and not one byte past the array.
#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

// Sizes about the 256-byte pattern and the 1 MiB block: below, at and past their edges.
std::vector<std::int64_t> counts_for(std::size_t element) {
  const auto block = static_cast<std::int64_t>((std::size_t{1} << 20) / element);
  const auto pattern = static_cast<std::int64_t>(256 / element);
  return {1, pattern - 1, pattern, pattern + 1, block - 1, block, block + 1, 5 * block + 3};
}

template <class T>
void expect_filled(const char* device, T value) {
  const tack::Device d = tack::device(device);
  for (std::int64_t n : counts_for(sizeof(T))) {
    tack::Array a = d.zeros(tack::dtype_of<T>, {n});
    a.fill(value);
    const std::vector<T> host = a.to_host<T>();
    std::int64_t wrong = 0;
    for (const T& v : host) wrong += std::memcmp(&v, &value, sizeof(T)) != 0;
    EXPECT_EQ(wrong, 0) << device << ": " << n << " elements of " << sizeof(T) << " bytes";
  }
}

TEST(HostFill, EveryElementOfEverySizeOnBothHostDevices) {
  for (const char* device : {"cpu", "interp"}) {
    expect_filled<std::uint8_t>(device, 0xA5);
    expect_filled<std::int16_t>(device, 0x1234);  // two different bytes: the pattern keeps their order
    expect_filled<float>(device, -1.5f);
    expect_filled<std::uint64_t>(device, 0x0102030405060708ull);
  }
}

TEST(HostFill, ConvertsTheValueToTheArraysDtype) {
  tack::Array a = tack::device("cpu").zeros(tack::DType::F32, {(1 << 20) + 7});
  a.fill(std::int32_t{7});
  for (float v : a.to_host<float>()) ASSERT_EQ(v, 7.0f);
  tack::Array b = tack::device("cpu").zeros(tack::DType::Bool, {(3 << 20) + 1});
  b.fill(2.5);  // nonzero: true, one byte of 1
  const std::vector<std::uint8_t> bytes = b.to_host<std::uint8_t>();
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), std::uint8_t{1}), (3 << 20) + 1);
}

TEST(HostFill, WritesNoBytePastAWrappedArray) {
  const std::int64_t n = 3 * (1 << 20) / 8 + 5;  // f64: three blocks and a bit
  std::vector<double> memory(static_cast<std::size_t>(n) + 64, -7.0);
  tack::Array a = tack::array_from_ptr(tack::device("cpu"), memory.data() + 32, tack::DType::F64, {n});
  a.fill(3.25);
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const bool inside = i >= 32 && i < 32 + static_cast<std::size_t>(n);
    ASSERT_EQ(memory[i], inside ? 3.25 : -7.0) << "element " << i;
  }
}

}  // namespace
