// The compile checks of the four dialects.
#include "compile_checks/dialects.hpp"

#include "backends/cuda/nvrtc_compile.hpp"
#include "backends/hip/hiprtc_compile.hpp"
#include "backends/level_zero/ocloc_compile.hpp"
#include "drivers/ocloc_api.hpp"
#include "drivers/rtc_api.hpp"

#include <tack/error.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <utility>

namespace tack::compile_checks {
namespace {

// Runs a shell command; its exit status, with stdout and stderr in *output.
int run(const std::string& command, std::string* output) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) output->append(buf.data(), n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string find_program(const char* name, std::initializer_list<const char*> fallbacks) {
  std::string out;
  if (run(std::string("command -v ") + name, &out) == 0 && !out.empty()) {
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }
  for (const char* f : fallbacks)
    if (std::filesystem::exists(f)) return f;
  return "";
}

// A file in a private temporary directory, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    char dir[] = "/tmp/tack-compile-check-XXXXXX";
    dir_ = mkdtemp(dir) ? dir : "/tmp";
    path_ = dir_ + "/unit" + suffix;
  }
  ~TempFile() {
    std::error_code ec;
    if (dir_ != "/tmp") std::filesystem::remove_all(dir_, ec);
  }
  const std::string& path() const { return path_; }
  void write(const std::string& text) const { std::ofstream(path_, std::ios::binary) << text; }

 private:
  std::string dir_, path_;
};

std::string joined(const std::vector<const Unit*>& units, bool rename) {
  std::string s;
  for (std::size_t i = 0; i < units.size(); ++i) s += (rename ? renamed(units[i]->source, i) : units[i]->source) + "\n";
  return s;
}

// ---- cuda ----------------------------------------------------------------------

std::string ptxas() { return find_program("ptxas", {"/usr/local/cuda/bin/ptxas"}); }

bool cuda_available(std::string* why) {
  if (!drivers::nvrtc(why)) return false;
  if (ptxas().empty()) return *why = "ptxas is not on PATH nor in /usr/local/cuda/bin", false;
  return true;
}

bool cuda_batch(const std::vector<const Unit*>& units, std::string* log) {
  std::string ptx;
  try {
    ptx = backends::cuda::compile_ptx(joined(units, true), "tack_compile_check", units.front()->fp_contract);
  } catch (const Error& e) {
    *log = e.what();
    return false;
  }
  TempFile file(".ptx");
  file.write(ptx);
  std::string out;
  int rc = run(ptxas() + " -arch=sm_90 -o /dev/null " + file.path(), &out);
  if (rc != 0) *log = "ptxas -arch=sm_90 failed (exit " + std::to_string(rc) + "):\n" + out;
  return rc == 0;
}

// ---- hip -----------------------------------------------------------------------

bool hip_available(std::string* why) { return drivers::hiprtc(why) != nullptr; }

bool hip_batch(const std::vector<const Unit*>& units, std::string* log) {
  try {
    std::vector<char> code = backends::hip::compile_code_object(joined(units, true), "tack_compile_check",
                                                                units.front()->fp_contract, {"--offload-arch=gfx90a"});
    if (code.empty()) return *log = "hipRTC returned an empty code object", false;
    return true;
  } catch (const Error& e) {
    *log = e.what();
    return false;
  }
}

// ---- level_zero ----------------------------------------------------------------

bool level_zero_available(std::string* why) { return drivers::ocloc(why) != nullptr; }

bool level_zero_batch(const std::vector<const Unit*>& units, std::string* log) {
  try {
    backends::level_zero::compile_with_ocloc(joined(units, true), "pvc", false);
    return true;
  } catch (const Error& e) {
    *log = e.what();
    return false;
  }
}

// ---- metal ---------------------------------------------------------------------

std::string clang() { return find_program("clang++", {"/usr/bin/clang++-14", "/usr/bin/clang++-19"}); }

bool metal_available(std::string* why) {
  if (clang().empty()) return *why = "clang++ is not installed", false;
  return true;
}

bool metal_batch(const std::vector<const Unit*>& units, std::string* log) {
  // Each kernel in a namespace of its own; the stub is included first, so each source's own
  // #include <metal_stdlib> is a no-op inside it.
  std::string text;
  for (std::size_t i = 0; i < units.size(); ++i)
    text += "namespace tack_msl_" + std::to_string(i) + " {\n" + units[i]->source + "}\n";
  TempFile file(".metal.cpp");
  file.write(text);
  std::string out;
  int rc = run(clang() + " -std=c++17 -fsyntax-only -Werror=return-type -Wno-unknown-attributes -I " +
                   TACK_METAL_STUB_DIR + " -include metal_stdlib -x c++ " + file.path(),
               &out);
  if (rc != 0) *log = "clang++ -fsyntax-only failed:\n" + out;
  return rc == 0;
}

const std::vector<Dialect>& dialects() {
  static const std::vector<Dialect> all = {
      {"cuda", "NVRTC to PTX, ptxas -arch=sm_90", cuda_available, cuda_batch, 48},
      {"hip", "hipRTC for gfx90a", hip_available, hip_batch, 48},
      {"level_zero", "ocloc to SPIR-V and a pvc binary", level_zero_available, level_zero_batch, 64},
      {"metal", "clang++ -fsyntax-only under the Metal stand-in header", metal_available, metal_batch, 128},
  };
  return all;
}

}  // namespace

std::string renamed(const std::string& source, std::size_t n) {
  const std::string from = "tack_", to = "tack" + std::to_string(n) + "_";
  std::string out;
  std::size_t pos = 0, hit;
  while ((hit = source.find(from, pos)) != std::string::npos) {
    out.append(source, pos, hit - pos);
    out += to;
    pos = hit + from.size();
  }
  out.append(source, pos, std::string::npos);
  return out;
}

std::vector<std::string> Dialect::compile(const std::vector<Unit>& units) const {
  std::vector<std::string> failures;
  // A batch shares one compiler run and so one set of options: the kernels of each fp_contract apart.
  std::vector<std::vector<const Unit*>> batches;
  for (bool contract : {true, false}) {
    std::vector<const Unit*> batch;
    for (const Unit& u : units) {
      if (u.fp_contract != contract) continue;
      batch.push_back(&u);
      if (batch.size() == batch_size) batches.push_back(std::exchange(batch, {}));
    }
    if (!batch.empty()) batches.push_back(std::move(batch));
  }
  for (const std::vector<const Unit*>& batch : batches) {
    std::string log;
    if (compile_batch(batch, &log)) continue;
    for (const Unit* u : batch) {
      std::string one;
      if (compile_batch({u}, &one)) continue;
      if (one.size() > 6000) one = one.substr(0, 6000) + "\n[... log truncated]";
      failures.push_back("kernel '" + u->kernel + "':\n" + one + "\n--- typed IR ---\n" + u->typed_ir);
    }
  }
  return failures;
}

const Dialect* find_dialect(const std::string& name) {
  for (const Dialect& d : dialects())
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace tack::compile_checks
