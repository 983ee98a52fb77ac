// The code-generation targets and the source-only stand-in backend, both read
// from the backends' descriptions (their recipes emit the source).
#include "runtime/devices/source_targets.hpp"

#include <tack/error.hpp>

namespace tack::runtime {
namespace {

class SourceOnlyBackend : public Backend {
 public:
  SourceOnlyBackend(const BackendDescription& t, std::string reason)
      : Backend(t.capabilities()), target_(t), reason_(std::move(reason)) {}
  std::shared_ptr<Buffer> allocate(std::size_t, bool) override { unavailable(); }
  std::unique_ptr<CompiledVariant> compile(const CompileInput&) override { unavailable(); }
  void launch(const Launch&) override { unavailable(); }
  // As the device answers for a texture within its limits, so inspect shows the code it compiles.
  bool texture_in_hardware(const std::array<std::int64_t, 3>&) const override {
    return target_.features.has(Feature::TexturesInHardware);
  }

 private:
  [[noreturn]] void unavailable() const {
    throw BackendUnavailable("the " + target_.name + " backend has no device here (" + reason_ +
                             "); only its generated source can be inspected");
  }
  const BackendDescription& target_;
  std::string reason_;
};

}  // namespace

const std::vector<const BackendDescription*>& source_targets() {
  static const std::vector<const BackendDescription*> targets = [] {
    std::vector<const BackendDescription*> out;
    for (const BackendDescription* d : api::backend_descriptions())
      if (d->recipe.emit) out.push_back(d);
    return out;
  }();
  return targets;
}

const BackendDescription* find_source_target(std::string_view name) {
  const BackendDescription* d = find_backend_description(name);
  return d && d->recipe.emit ? d : nullptr;
}

std::shared_ptr<Backend> source_only_backend(const BackendDescription& target, std::string reason) {
  return std::make_shared<SourceOnlyBackend>(target, std::move(reason));
}

}  // namespace tack::runtime
