// NVRTC's two process-wide effects (reference, CUDA: Compilation): the first
// compile warns when NVRTC is older than 13, and every compile gives the
// calling thread its locale back, since NVRTC 12 left it in "C". The rule and
// the guard are checked here on their own; the compile itself runs the
// installed NVRTC (without a GPU: PTX for sm_90) and skips without one.
#include "backends/cuda/nvrtc_compile.hpp"

#include "runtime/diagnostics/warnings.hpp"

#include <tack/error.hpp>

#include <gtest/gtest.h>

#include <locale.h>

#include <array>
#include <clocale>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace cu = tack::backends::cuda;

constexpr const char* kSource = "extern \"C\" __global__ void tack_locale_check(float* y) { y[0] = 1.5f; }";

TEST(NvrtcVersion, OlderThan13Warns) {
  for (auto [major, minor] : {std::pair{12, 0}, {12, 9}, {11, 8}}) {
    const std::string w = cu::nvrtc_version_warning(major, minor, "libnvrtc.so.12");
    const std::string version = std::to_string(major) + "." + std::to_string(minor);
    EXPECT_EQ(w, "NVRTC " + version +
                     " (libnvrtc.so.12) is older than 13: NVRTC 12.0 miscompiled Tack's lattice Boltzmann "
                     "example; use CUDA 13");
  }
}

TEST(NvrtcVersion, From13OnNoWarning) {
  for (auto [major, minor] : {std::pair{13, 0}, {13, 2}, {14, 0}})
    EXPECT_EQ(cu::nvrtc_version_warning(major, minor, "libnvrtc.so.13"), "") << major << "." << minor;
}

// The installed NVRTC's first compile warns exactly as the rule says (a process's first compile: when this test is
// not the first to compile in its process, an old NVRTC's warning has been given already and is not looked for).
TEST(NvrtcVersion, TheInstalledNvrtcWarnsByTheRule) {
  std::vector<std::string> warnings;
  std::mutex m;
  tack::runtime::set_warning_handler([&](const std::string& w) {
    std::lock_guard<std::mutex> lock(m);
    warnings.push_back(w);
  });
  std::array<int, 2> version{};
  try {
    version = cu::nvrtc_version();
    cu::compile_ptx(kSource, "tack_locale_check", true, {"--gpu-architecture=sm_90"});
  } catch (const tack::BackendUnavailable& e) {
    tack::runtime::set_warning_handler(nullptr);
    GTEST_SKIP() << "NVRTC is not available here: " << e.what();
  }
  tack::runtime::set_warning_handler(nullptr);
  int nvrtc_warnings = 0;
  for (const std::string& w : warnings) nvrtc_warnings += w.rfind("NVRTC ", 0) == 0;
  if (version[0] >= 13)
    EXPECT_EQ(nvrtc_warnings, 0) << "NVRTC " << version[0] << "." << version[1] << " warned: " << warnings.front();
  else
    EXPECT_LE(nvrtc_warnings, 1) << "the warning is given once";
}

// A locale other than the default "C": the brief's de_DE.UTF-8 where installed, else C.UTF-8.
locale_t other_locale(std::string* name) {
  for (const char* n : {"de_DE.UTF-8", "C.UTF-8"}) {
    if (locale_t l = newlocale(LC_ALL_MASK, n, static_cast<locale_t>(0))) {
      *name = n;
      return l;
    }
  }
  return static_cast<locale_t>(0);
}

// The guard alone: whatever the thread's locale becomes inside, it is the one from before afterwards, both for a
// thread with its own locale and for one that follows the process's.
TEST(KeepThreadLocale, GivesTheThreadItsLocaleBack) {
  std::string name;
  locale_t mine = other_locale(&name);
  if (!mine) GTEST_SKIP() << "neither de_DE.UTF-8 nor C.UTF-8 is installed (locale -a)";
  locale_t c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  ASSERT_NE(c, static_cast<locale_t>(0));
  const locale_t before = uselocale(mine);
  {
    cu::KeepThreadLocale keep;
    uselocale(c);  // what NVRTC 12 did
  }
  EXPECT_EQ(uselocale(static_cast<locale_t>(0)), mine) << "the thread's own " << name << " locale";
  uselocale(LC_GLOBAL_LOCALE);
  {
    cu::KeepThreadLocale keep;
    uselocale(c);
  }
  EXPECT_EQ(uselocale(static_cast<locale_t>(0)), LC_GLOBAL_LOCALE) << "the process's locale";
  uselocale(before);
  freelocale(c);
  freelocale(mine);
}

// Through Tack's compile: with the process's LC_ALL and the thread's locale both set to another locale than "C",
// both are unchanged after an NVRTC compile.
TEST(NvrtcCompile, KeepsTheThreadAndProcessLocale) {
  std::string name;
  locale_t mine = other_locale(&name);
  if (!mine) GTEST_SKIP() << "neither de_DE.UTF-8 nor C.UTF-8 is installed (locale -a)";
  const std::string process_before = std::setlocale(LC_ALL, nullptr);
  ASSERT_NE(std::setlocale(LC_ALL, name.c_str()), nullptr);
  const locale_t thread_before = uselocale(mine);
  bool ran = false;
  std::string why;
  try {
    cu::compile_ptx(kSource, "tack_locale_check", true, {"--gpu-architecture=sm_90"});
    ran = true;
  } catch (const tack::BackendUnavailable& e) {
    why = e.what();
  }
  const locale_t thread_after = uselocale(static_cast<locale_t>(0));
  const std::string process_after = std::setlocale(LC_ALL, nullptr);
  const std::string numeric_after = std::setlocale(LC_NUMERIC, nullptr);
  uselocale(thread_before);
  std::setlocale(LC_ALL, process_before.c_str());
  freelocale(mine);
  if (!ran) GTEST_SKIP() << "NVRTC is not available here: " << why;
  EXPECT_EQ(thread_after, mine) << "the thread's " << name << " locale";
  EXPECT_EQ(process_after, name) << "the process's LC_ALL";
  EXPECT_EQ(numeric_after, name) << "the process's LC_NUMERIC";
}

}  // namespace
