// The "interp" backend: runs typed IR in the reference interpreter over host
// memory. Slow, exact to docs/semantics.md by construction, and the device every other
// backend is tested against; it runs workgroups and every atomic. Option
// "lanes" sets how many iterations advance in lock step (1 runs them one by one).
#include "backends/interp/interp_backend.hpp"

#include "interp/interpreter.hpp"
#include "runtime/devices/backend_description.hpp"
#include "runtime/memory/host_buffer.hpp"

#include <tack/error.hpp>

#include <vector>

namespace tack::backends::interp {
using namespace tack::runtime;
namespace {

class InterpBackend final : public Backend {
 public:
  explicit InterpBackend(int lanes) : Backend(capabilities()), lanes_(lanes) {}

  static Capabilities capabilities() {
    Capabilities c = backend_description("interp").capabilities();
    c.supports_wrapped_memory = true;
    return c;
  }

  std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed) override {
    return std::make_shared<HostBuffer>(bytes, zeroed);
  }

  std::shared_ptr<Buffer> wrap_memory(std::uintptr_t address, std::size_t bytes,
                                      std::shared_ptr<void> keep_alive) override {
    return std::make_shared<HostBuffer>(reinterpret_cast<void*>(address), bytes, std::move(keep_alive));
  }

  std::vector<std::pair<std::string, std::string>> about() const override {
    return {{"device", "Tack's reference interpreter, on the host"}, {"lanes", std::to_string(lanes_)}};
  }

  // The interpreter runs the variant's typed IR itself (its row's emitter shows that IR as its source).
  std::unique_ptr<CompiledVariant> compile(const CompileInput&) override { return std::make_unique<CompiledVariant>(); }

  void launch(const Launch& l) override {
    std::vector<tack::interp::Arg> args = interp_args(l.args, l.arg_count);
    tack::interp::run(l.variant->typed, args, 0, l.count, lanes_);
  }

 private:
  int lanes_;
};

}  // namespace

std::vector<tack::interp::Arg> interp_args(const BoundArg* bound, std::size_t count) {
  std::vector<tack::interp::Arg> args(count);
  for (std::size_t i = 0; i < count; ++i) {
    const BoundArg& b = bound[i];
    tack::interp::Arg& a = args[i];
    a.kind = b.kind;
    a.scalar = b.scalar;
    if (b.array) {
      a.array.data = b.array->buffer->host_data();
      a.array.dtype = b.array->dtype;
      a.array.size = b.array->size;
      a.array.rank = static_cast<int>(b.array->shape.size());
      for (std::size_t d = 0; d < b.array->shape.size(); ++d) a.array.shape[d] = b.array->shape[d];
    }
    if (b.texture) {
      a.texture.data = static_cast<const float*>(b.texture->copy->buffer->host_data());
      a.texture.width = b.texture->shape[0];
      a.texture.height = b.texture->shape[1];
      a.texture.depth = b.texture->shape[2];
    }
  }
  return args;
}

std::shared_ptr<Backend> make_interp_backend(const DeviceOptions& options) {
  int lanes = tack::interp::kMaxLanes;
  if (auto it = options.find("lanes"); it != options.end()) {
    const auto* v = std::get_if<std::int64_t>(&it->second);
    if (!v || *v < 1 || *v > tack::interp::kMaxLanes)
      throw InvalidArgument("device 'interp': option 'lanes' must be an integer from 1 to " +
                            std::to_string(tack::interp::kMaxLanes));
    lanes = static_cast<int>(*v);
  }
  return std::make_shared<InterpBackend>(lanes);
}

}  // namespace tack::backends::interp
