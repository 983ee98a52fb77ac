// The inspect golden test: the generated code of every kernel of the
// compile-check corpus, on every backend tack::inspect supports, compared byte
// for byte with tests/golden/inspect/<backend>.txt.gz (gzip, to keep some 4 MB
// of text under 250 KB; `zcat` reads them). It pins the code generators'
// output, so that a refactoring of one can prove it changed nothing.
//
//   tack_compile_checks --inspect-golden                        compare (ctest: compile_checks.inspect_golden)
//   TACK_UPDATE_GOLDEN=1 tack_compile_checks --inspect-golden   rewrite the files that differ
//
// The corpus is the compile checks' (compile_checks.cpp): the distinct typed
// kernels the conformance suite specializes on interp. For each, the text is
// what tack::inspect's last step produces from the typed kernel (lowered by the
// backend's recipe, then its emitter, or the device's Backend::source for cpu):
//   cpu         the LLVM IR the CPU backend generates (before optimization), for a
//               pinned target whatever the host is: x86-64 with AVX-512 (gangs in
//               512-bit vectors) and glibc's libmvec, SIMD gangs on even under
//               TACK_CPU_SIMD=0 (kPinnedCpu below)
//   interp      the typed IR (so the typed IR of every kernel is pinned once, there)
//   cuda, hip, level_zero, metal, opencl
//               the C-family source, through the source-only backends inspect
//               falls back to without a device; always those, so the files do
//               not depend on the GPUs or OpenCL platforms of the machine.
// As inspect does, a texture parameter is sampled in hardware where the
// backend says so (cuda). A kernel the backend refuses at the call is listed
// with the reason. Kernels are sorted by name and typed IR, since the suite may
// specialize them from several threads in any order. Inspection::ir (the
// traced, untyped IR) is not pinned: the corpus holds typed kernels only, and
// no code generator reads it. Only a refusal's source locations are
// normalized, to paths inside the checkout, so the files match whatever the
// build folder, clone path or ccache setting; the texts hold no addresses (the same files come out run after run). A mismatch prints the
// first differing kernel and leaves both texts in the test's working folder
// (inspect_golden_<backend>.txt and inspect_golden_<backend>.golden.txt) for
// diffing. The update rewrites only the files whose text changed. Without zlib
// the test skips (77).
//
// The files are written by the code under test: they say that a change left the
// generated code as it was, not that the code is right. Whether kernels compute
// the right values is for the conformance tests, which compute what they expect
// independently of Tack.
#include "compile_checks/inspect_golden.hpp"

#include "backends/cpu/cpu_backend.hpp"
#include "ir/printer.hpp"
#include "passes/check_capabilities.hpp"
#include "passes/pipeline.hpp"
#include "runtime/memory/access.hpp"
#include "runtime/kernels/resolve_variant.hpp"
#include "runtime/devices/source_targets.hpp"

#include <tack/device.hpp>
#include <tack/error.hpp>

#ifdef TACK_HAVE_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

namespace tack::compile_checks {
namespace {

// A message with its source locations made relative to the checkout
// ("/home/me/tack/tests/x.cpp:12" and "../../tests/x.cpp:12" -> "tests/x.cpp:12"):
// how a compiler names the file depends on the build folder and on ccache.
std::string without_checkout(std::string text) {
  for (std::size_t at = text.find("tests/"); at != std::string::npos; at = text.find("tests/", at + 6)) {
    std::size_t begin = at;
    while (begin > 0 && text[begin - 1] != ' ') --begin;
    text.erase(begin, at - begin);
    at = begin;
  }
  return text;
}

// The CPU target the cpu file is generated for (LLVM's x86 feature names): the host's
// would tie the file to the machine (gang widths and libmvec calls follow its vectors).
constexpr const char* kPinnedCpu = "+sse4.2,+avx,+avx2,+fma,+avx512f";

struct Target {
  std::string name;
  std::shared_ptr<runtime::Backend> backend;  // its capabilities decide refusals
};

// The end of inspect's compile path: the optimized kernel lowered by the backend's recipe, then its emitter (or
// its device's own source), but the cpu backend's for the pinned target.
std::string source(const Target& t, const ir::Kernel& k) {
  const abi::PackedKernel lowered = passes::lower_for_backend(k, t.backend->recipe().lowering);
  if (t.name == "cpu") return backends::cpu::source_for_pinned_target(lowered.kernel, kPinnedCpu);
  return runtime::generated_source(*t.backend, lowered);
}

// cpu and interp through their devices; the C-family backends through their source-only stand-ins.
std::vector<Target> targets() {
  std::vector<Target> out;
  for (const char* name : {"cpu", "interp"}) {
    std::vector<std::string> names = backend_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::cout << "inspect golden: this build has no " << name << " backend; its file is not checked\n";
      continue;
    }
    out.push_back({name, detail::Access::backend(device(name))});
  }
  for (const runtime::BackendDescription* t : runtime::source_targets())
    if (std::none_of(out.begin(), out.end(), [&](const Target& o) { return o.name == t->name; }))
      out.push_back({t->name, runtime::source_only_backend(*t, "the inspect golden test")});
  return out;
}

// One kernel's section of a backend's file.
std::string render(const ir::Kernel& typed, const Target& t) {
  runtime::Backend& backend = *t.backend;
  std::string head = "==== " + typed.name + " ====\n";
  ir::Kernel k = typed;
  try {
    for (const ir::Param& p : k.params)
      if (p.kind != ir::ParamKind::Texture && !backend.caps().supports(p.dtype))
        throw TypeError(std::string(dtype_name(p.dtype)) + " is not supported on " + backend.caps().name);
    passes::check_capabilities(k, backend.caps());
    for (ir::Param& p : k.params)
      if (p.kind == ir::ParamKind::Texture) p.hardware_texture = backend.texture_in_hardware({2, 2, 2});
    return head + source(t, k);
  } catch (const TypeError& e) {
    return head + "refused: " + without_checkout(e.what()) + "\n";
  } catch (const InvalidArgument& e) {
    return head + "refused: " + without_checkout(e.what()) + "\n";
  }
}

#ifdef TACK_HAVE_ZLIB
// The text of a gzip file; empty if it is missing or damaged.
std::string read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return {};
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  if (n < 0) text.clear();
  gzclose(f);
  return text;
}

bool write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb9");
  if (!f) return false;
  const bool ok = gzwrite(f, text.data(), static_cast<unsigned>(text.size())) == static_cast<int>(text.size());
  return gzclose(f) == Z_OK && ok;
}
#endif

// The first kernel section where the two texts differ, with the first differing line.
std::string first_difference(const std::string& want, const std::string& got) {
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  std::size_t section = got.rfind("==== ", i);
  std::size_t section_end = section == std::string::npos ? 0 : got.find('\n', section);
  std::size_t line_start = got.rfind('\n', i == 0 ? 0 : i - 1);
  line_start = line_start == std::string::npos || i == 0 ? 0 : line_start + 1;
  auto line_at = [&](const std::string& s) { return s.substr(line_start, s.find('\n', line_start) - line_start); };
  return "in " +
         (section == std::string::npos ? std::string("the header") : got.substr(section, section_end - section)) +
         "\n  golden: " + (line_start < want.size() ? line_at(want) : "<end of file>") +
         "\n  now:    " + (line_start < got.size() ? line_at(got) : "<end of file>");
}

}  // namespace

int run_inspect_golden(std::vector<ir::Kernel> kernels) {
#ifndef TACK_HAVE_ZLIB
  std::cout << "inspect golden: skipped: this build found no zlib to read tests/golden/inspect/*.txt.gz\n";
  return 77;
#else
  std::vector<std::pair<std::string, const ir::Kernel*> > order;
  for (const ir::Kernel& k : kernels) order.emplace_back(k.name + "\n" + ir::to_string(k), &k);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const char* update_env = std::getenv("TACK_UPDATE_GOLDEN");
  const bool update = update_env && std::string(update_env) == "1";
  int failures = 0;
  for (const Target& t : targets()) {
    std::string text = "# tack::inspect(...).source on " + t.name + " for the " + std::to_string(order.size()) +
                       " kernels of the compile-check corpus (tests/compile_checks/inspect_golden.cpp)\n";
    for (const auto& [key, k] : order) text += render(*k, t);
    const std::string path = std::string(TACK_GOLDEN_DIR) + "/" + t.name + ".txt.gz";
    const std::string want = read_gzip(path);
    if (want == text) {
      std::cout << "inspect golden: " << t.name << " matches (" << order.size() << " kernels)\n";
      continue;
    }
    if (update) {
      if (!write_gzip(path, text)) {
        std::cout << "FAILED: inspect golden: could not write " << path << "\n";
        ++failures;
        continue;
      }
      std::cout << "inspect golden: rewrote " << path << " (" << text.size() << " bytes of text)\n";
      continue;
    }
    ++failures;
    const std::string actual = "inspect_golden_" + t.name + ".txt", golden = "inspect_golden_" + t.name + ".golden.txt";
    std::ofstream(actual, std::ios::binary) << text;
    std::ofstream(golden, std::ios::binary) << want;
    std::cout << "FAILED: inspect golden: " << t.name << " differs from " << path << " " << first_difference(want, text)
              << "\n  diff " << golden << " " << actual
              << " shows all of it; TACK_UPDATE_GOLDEN=1 rewrites the golden files\n";
  }
  std::cout << failures << " backends differ\n";
  return failures == 0 && !order.empty() ? 0 : 1;
#endif
}

}  // namespace tack::compile_checks
