// One launch's private copies of the arrays its kernel only atomic-adds into (analysis/private_adds.hpp): each
// chunk of the launch claims a zeroed copy of its own, its adds run there as plain read-modify-writes, and
// finish() adds the copies, in the order of their chunks' starts, into the arrays, one atomic add per element
// (another queue's launch may be adding into the same array meanwhile).
#pragma once

#include <tack/dtype.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tack::backends::cpu {

// Memory for the copies, kept by the launching thread from launch to launch (never zeroed as a whole: each claim
// zeroes its own copies).
struct PrivateScratch {
  std::unique_ptr<std::byte[]> bytes;
  std::size_t size = 0;
};

struct PrivateArray {
  std::size_t pack_slot;  // where the launch's argument pack holds the array's data pointer
  DType dtype;
  std::int64_t size;
  void* data;
};

class PrivateAdds {
 public:
  // Room for `chunks` copies of each array in `scratch` (grown as needed).
  PrivateAdds(std::vector<PrivateArray> arrays, int chunks, PrivateScratch& scratch);

  // For a chunk starting at `begin`: claims a copy, zeroes it (-0.0 for floats, which adds nothing to any value,
  // -0.0 included), and writes into `pack` a copy of the launch's `slots` pack slots with the copy's addresses for
  // the arrays'. The chunks that run one after another on the launching thread (`launching_thread`) share the
  // copy the first of them claims. At most `chunks` claims per launch. Thread-safe.
  void claim(std::int64_t begin, const std::uint64_t* launch_pack, std::size_t slots, std::uint64_t* pack,
             bool launching_thread);

  // Adds the claimed copies into the arrays. After every chunk has finished.
  void finish();

 private:
  std::byte* copy_of(int claim, std::size_t array) const;

  std::vector<PrivateArray> arrays_;
  std::vector<std::size_t> offsets_;  // of each array within a claim's block
  std::size_t block_bytes_ = 0;
  int chunks_;
  std::byte* base_;
  std::vector<std::int64_t> begins_;
  std::atomic<int> claimed_{0};
  int launching_thread_claim_ = -1;  // read and written on the launching thread only
};

}  // namespace tack::backends::cpu
