// The smallest backend a test can make a tack::Device of: host memory, a
// variant that is nothing, launches that do nothing. A test derives from it and
// overrides the one thing it examines (what compile sees, a wait, textures).
#pragma once

#include "runtime/devices/backend.hpp"
#include "runtime/memory/host_buffer.hpp"

#include <tack/tack.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tack_test {

// A test device's capabilities: its name and dtypes, the rest derived as for any backend.
inline tack::Capabilities host_test_capabilities(std::string name, std::vector<tack::DType> dtypes) {
  tack::Capabilities c;
  c.name = std::move(name);
  c.display_name = "test";
  c.supported_dtypes = std::move(dtypes);
  return tack::runtime::derive_capabilities(c, {});
}

class HostTestBackend : public tack::runtime::Backend {
 public:
  explicit HostTestBackend(const tack::Capabilities& caps) : Backend(caps) {}
  std::shared_ptr<tack::runtime::Buffer> allocate(std::size_t bytes, bool zeroed) override {
    return std::make_shared<tack::runtime::HostBuffer>(bytes, zeroed);
  }
  std::unique_ptr<tack::runtime::CompiledVariant> compile(const tack::runtime::CompileInput&) override {
    return std::make_unique<tack::runtime::CompiledVariant>();
  }
  std::string source(const tack::ir::Kernel&) override { return ""; }
  void launch(const tack::runtime::Launch&) override {}
};

}  // namespace tack_test
