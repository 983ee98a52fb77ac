// Arrays: C-contiguous device memory with a dtype and a shape of up to 4 dimensions.
#pragma once

#include <tack/device.hpp>
#include <tack/dtype.hpp>
#include <tack/native_memory.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <vector>

struct DLManagedTensor;  // <dlpack/dlpack.h>

namespace tack {

namespace runtime {
struct ArrayStorage;
}
namespace detail {
struct Access;  // Tack's own reach into the classes below (src/runtime/memory/access.hpp); not for users
// What Array::sum, min and max compute.
enum class ReduceOp : std::uint8_t { Sum, Min, Max };
}

class Array {
 public:
  Array() = default;
  explicit Array(std::shared_ptr<runtime::ArrayStorage> storage);

  DType dtype() const;
  const std::vector<std::int64_t>& shape() const;
  int rank() const;
  std::int64_t size() const;
  Device device() const;
  bool valid() const { return storage_ != nullptr; }

  // Copies the whole array to the host; T must be the array's dtype. A bool
  // array reads as std::uint8_t, its bytes (0 or 1 where Tack wrote them), since
  // std::vector<bool> packs bits.
  template <Arithmetic T>
  std::vector<T> to_host() const;
  // The array's contents once the launches queued before this call have run,
  // read in one of Tack's tack-wait threads so the caller keeps running. Later
  // launches are not waited for. A launch's error arrives through the future;
  // an empty array or a T other than the dtype throws here, as to_host() does.
  template <Arithmetic T>
  std::future<std::vector<T>> to_host_async() const;
  // Copies elements [start, start + count) of the flat array to the host.
  template <Arithmetic T>
  std::vector<T> read_range(std::int64_t start, std::int64_t count) const;
  // Sets every element to value, converted to the dtype as cast() does.
  template <Arithmetic T>
  void fill(T value) {
    fill_bits(dtype_of<T>, &value);
  }

  // Reductions. sum: integers wrap in 64 bits, floats accumulate in f64; an
  // empty array sums to 0. min/max: NaN is skipped unless every element is NaN;
  // an empty array is an InvalidArgument. The result is converted to T.
  template <Arithmetic T>
  T sum() const;
  template <Arithmetic T>
  T min() const;
  template <Arithmetic T>
  T max() const;

  // Hands the memory to code outside Tack: waits for the launches queued so far
  // (raising their error), then marks the array shared, so every later launch or
  // fill that uses it completes before returning, since the other side may read
  // the memory with no Tack call in between. The handle stays valid while the
  // array lives.
  NativeMemory share() const;
  // Whether the memory was handed out (share(), export_memory()) or came from
  // outside (array_from_ptr); such an array's launches complete before returning.
  bool shared() const;
  // The memory as a file descriptor another process or API can map (CUDA only,
  // where capabilities().supports_exportable_memory). An array not made with
  // Device::empty_exportable is first moved, once, into exportable memory: its
  // contents and the Array stay the same, its device address changes. The array
  // is shared from then on. InvalidArgument on other devices.
  ExportedMemory export_memory() const;
  // The array as a DLPack tensor (compact row-major, strides null), after
  // share(): the consumer owns the result and calls its deleter, which releases
  // the array's memory once Tack is done with it too. Device type: kDLCPU (cpu,
  // interp), kDLCUDA, kDLROCM (hip), kDLOpenCL (data is the cl_mem), kDLMetal
  // (data is the id<MTLBuffer>), 14 = kDLOneAPI (level_zero).
  DLManagedTensor* to_dlpack() const;

  // Differentiation (docs/autodiff.md). A tack::Tape records the launches that use an array requiring a
  // gradient; every float array such a launch writes requires one from then on. Integer and bool arrays carry
  // none: set_requires_grad(true) on one is an InvalidArgument. The flag is shared by every copy of the handle.
  void set_requires_grad(bool on = true) const;
  bool requires_grad() const;
  // The gradient: an array of this array's dtype, shape and device, zero until a Tape's backward adds into it
  // (made at the first call, the same array afterwards). An InvalidArgument for an integer or bool array.
  Array grad() const;

 private:
  friend struct detail::Access;
  void read_bytes(DType as, std::int64_t start, std::int64_t count, void* out) const;
  // Marks the device's queue now and calls then(error of the wait or nullptr)
  // once the mark is reached: in a tack-wait thread, or before returning where
  // the device has no queue to wait on.
  void after_queued(DType as, std::function<void(std::exception_ptr)> then) const;
  void fill_bits(DType from, const void* value);
  void reduce(detail::ReduceOp op, DType as, void* out) const;
  std::shared_ptr<runtime::ArrayStorage> storage_;
};

// An array over memory Tack did not allocate, in the form share() hands out
// (NativeMemory::kind): a host pointer on cpu and interp, a device pointer of the
// device on cuda (CUdeviceptr) and hip, a USM device or shared pointer of the
// context on level_zero, a cl_mem buffer of the context on opencl, an
// id<MTLBuffer> of the device on metal. Tack never frees it; keep_alive, if
// given, is held until the array and every launch using it are done. The array
// is shared (see Array::share()). The address must be aligned to the dtype; a
// device pointer must lie, with all its bytes, in one allocation of the device,
// and a buffer handle must hold the array's bytes. InvalidArgument otherwise, and
// on devices that cannot wrap memory (capabilities().supports_wrapped_memory).
Array array_from_ptr(const Device& device, std::uintptr_t address, DType dtype, std::vector<std::int64_t> shape,
                     std::shared_ptr<void> keep_alive = {});
inline Array array_from_ptr(const Device& device, void* pointer, DType dtype, std::vector<std::int64_t> shape,
                            std::shared_ptr<void> keep_alive = {}) {
  return array_from_ptr(device, reinterpret_cast<std::uintptr_t>(pointer), dtype, std::move(shape),
                        std::move(keep_alive));
}

// An array over a DLPack tensor's memory (array_from_ptr), on `device`, or
// when it is empty on the device the tensor names (kDLCPU: cpu, else interp;
// kDLCUDA, kDLROCM, kDLOneAPI, kDLOpenCL, kDLMetal: tack::device("cuda"),
// ("hip"), ("level_zero"), ("opencl"), ("metal"); a tensor of another device
// of the API needs that device passed). On success Tack owns the tensor and calls its deleter when the
// array is gone; on an error the caller still owns it. The tensor must be
// row-major and contiguous, of a Tack dtype, with 1 to 4 dimensions.
Array from_dlpack(DLManagedTensor* tensor, const Device& device = {});

template <Arithmetic T>
std::vector<T> Array::to_host() const {
  static_assert(!std::is_same_v<T, bool>, "std::vector<bool> packs bits: read a bool array as std::uint8_t");
  std::vector<T> out(static_cast<std::size_t>(size()));
  read_bytes(dtype_of<T>, 0, size(), out.data());
  return out;
}
template <Arithmetic T>
std::future<std::vector<T>> Array::to_host_async() const {
  static_assert(!std::is_same_v<T, bool>, "std::vector<bool> packs bits: read a bool array as std::uint8_t");
  auto result = std::make_shared<std::promise<std::vector<T>>>();
  std::future<std::vector<T>> out = result->get_future();
  // The task holds its own handle, so the array outlives the wait even if the caller drops it.
  after_queued(dtype_of<T>, [result, self = *this](std::exception_ptr failed) {
    if (failed) return result->set_exception(failed);
    try {
      result->set_value(self.to_host<T>());
    } catch (...) {
      result->set_exception(std::current_exception());
    }
  });
  return out;
}
template <Arithmetic T>
std::vector<T> Array::read_range(std::int64_t start, std::int64_t count) const {
  static_assert(!std::is_same_v<T, bool>, "std::vector<bool> packs bits: read a bool array as std::uint8_t");
  std::vector<T> out(count > 0 ? static_cast<std::size_t>(count) : 0);
  read_bytes(dtype_of<T>, start, count, out.data());
  return out;
}
template <Arithmetic T>
T Array::sum() const {
  T out{};
  reduce(detail::ReduceOp::Sum, dtype_of<T>, &out);
  return out;
}
template <Arithmetic T>
T Array::min() const {
  T out{};
  reduce(detail::ReduceOp::Min, dtype_of<T>, &out);
  return out;
}
template <Arithmetic T>
T Array::max() const {
  T out{};
  reduce(detail::ReduceOp::Max, dtype_of<T>, &out);
  return out;
}

template <Arithmetic T>
Array Device::from_host(std::span<const T> data, std::vector<std::int64_t> shape) const {
  return from_host_bytes(dtype_of<T>, data.data(), data.size(), std::move(shape));
}
template <Arithmetic T>
Array Device::from_host(const std::vector<T>& data, std::vector<std::int64_t> shape) const {
  static_assert(!std::is_same_v<T, bool>,
                "std::vector<bool> packs bits: pass a std::span<const bool> for a bool array (or u8 data)");
  return from_host_bytes(dtype_of<T>, data.data(), data.size(), std::move(shape));
}

}  // namespace tack
