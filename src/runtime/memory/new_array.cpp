// Filling in an array's storage.
#include "runtime/memory/new_array.hpp"

namespace tack::runtime {

Array new_array(std::shared_ptr<Backend> backend, DType dtype, std::vector<std::int64_t> shape, std::int64_t count,
                std::shared_ptr<Buffer> buffer) {
  auto s = std::make_shared<ArrayStorage>();
  s->backend = std::move(backend);
  s->dtype = dtype;
  s->shape = std::move(shape);
  s->size = count;
  s->buffer = std::move(buffer);
  return Array(s);
}

}  // namespace tack::runtime
