// The compile pipeline (passes/pipeline.hpp): TACK_DUMP_IR names every pass, in
// the order docs/language.md lists them, both when the pipeline runs directly
// and when a backend's recipe picks its lowering.
#include "passes/pipeline.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/kernel_impl.hpp"
#include "support/scoped_env.hpp"

#include <gtest/gtest.h>
#include <tack/tack.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tack::lang;
using tack_test::ScopedEnv;

// The pass of each numbered step under docs/language.md's "The compile pipeline".
std::vector<std::string> documented_order() {
  const std::string path = std::string(TACK_SOURCE_DIR) + "/docs/language.md";
  std::ifstream in(path);
  EXPECT_TRUE(in) << path << " not found";
  std::vector<std::string> passes;
  const std::regex step(R"(^\d+\. `(\w+)`)");
  bool inside = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) inside = line == "### The compile pipeline";
    std::smatch m;
    if (inside && std::regex_search(line, m, step)) passes.push_back(m[1]);
  }
  return passes;
}

// The <pass> of each `--- after <pass> ---` line of a dump, in order.
std::vector<std::string> dumped_order(const std::string& dump) {
  std::vector<std::string> passes;
  const std::regex after(R"(^--- after (\w+)( \(.*\))? ---$)");
  std::istringstream in(dump);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, after)) passes.push_back(m[1]);
  }
  return passes;
}

std::vector<std::string> without(std::vector<std::string> passes, const std::vector<std::string>& skipped) {
  std::erase_if(passes, [&](const std::string& p) { return std::ranges::find(skipped, p) != skipped.end(); });
  return passes;
}

// Small, and a workgroup kernel, so that every step has something to do.
tack::Kernel reversed_tiles() {
  return tack::kernel("pipeline_reversed_tiles", [](Array out, Array in) {
    workgroup_for(out.size(), [&](Group g) {
      auto tile = g.shared<float>(256);
      tile[g.local_id()] = in[g.global_id()];
      g.barrier();
      out[g.global_id()] = tile[255 - g.local_id()];
    });
  });
}

TEST(Pipeline, DumpNamesEveryPassInTheDocumentedOrder) {
  const std::vector<std::string> documented = documented_order();
  ASSERT_EQ(documented.size(), 12u) << "docs/language.md, \"The compile pipeline\": a step is missing or added";
  tack::Kernel k = reversed_tiles();
  (void)k.ir();
  tack::passes::TypingRequest request;
  request.params = {{tack::DType::F32, 1}, {tack::DType::F32, 1}};
  request.hardware_texture = {false, false};
  request.debug = true;  // so that bounds_checks runs
  ScopedEnv dump("TACK_DUMP_IR", "1");
  testing::internal::CaptureStderr();
  (void)tack::passes::run_pipeline(tack::detail::Access::impl(k)->traced(), request,
                                   {.work_item_loops = true, .pack_scalars = true});
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(dumped_order(out), documented) << out;
  // A pass that rewrote the IR prints it after its line; a check prints its line only.
  EXPECT_NE(out.find("--- after infer_types ---\nkernel pipeline_reversed_tiles("), std::string::npos) << out;
  EXPECT_NE(out.find(" (a check: the IR is unchanged) ---\n--- after bounds_checks ---\n"), std::string::npos) << out;
}

TEST(Pipeline, ACompileDumpsTheStepsOfItsBackend) {
  const std::vector<std::string> documented = documented_order();
  tack::Kernel k = reversed_tiles();
  const tack::ArraySpec f32{tack::DType::F32, 1};
  // Not in debug mode, so no bounds_checks; interp lowers nothing.
  std::vector<std::pair<std::string, std::vector<std::string>>> backends = {
      {"interp", {"bounds_checks", "lower_workgroups", "pack_scalars"}},
      {"opencl", {"bounds_checks", "lower_workgroups"}},
  };
#ifdef TACK_HAVE_LLVM
  backends.push_back({"cpu", {"bounds_checks", "pack_scalars"}});
#endif
  const bool was_debug = tack::debug();
  tack::set_debug(false);
  ScopedEnv dump("TACK_DUMP_IR", "1");
  for (const auto& [backend, skipped] : backends) {
    testing::internal::CaptureStderr();
    (void)tack::inspect(k, backend, f32, f32);
    const std::string out = testing::internal::GetCapturedStderr();
    EXPECT_EQ(dumped_order(out), without(documented, skipped)) << backend << ":\n" << out;
  }
  tack::set_debug(was_debug);
}

TEST(Pipeline, NothingIsDumpedByDefault) {
  tack::Kernel k = reversed_tiles();
  const tack::ArraySpec f32{tack::DType::F32, 1};
  ScopedEnv dump("TACK_DUMP_IR", nullptr);
  testing::internal::CaptureStderr();
  (void)tack::inspect(k, "interp", f32, f32);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
