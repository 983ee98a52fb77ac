// Makes a kernel, runs it on the interpreter and, where the CPU backend was
// built, compiles it there too (the disk cache off, so the compiler plugin must
// load from beside the installed or sub-built libtack), checking one value each.
#include <tack/tack.hpp>

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  using namespace tack::lang;
  ::setenv("TACK_CACHE", "0", 1);
  auto twice =
      tack::kernel("twice", [](Array out, Array in) { parallel_for(in.size(), [&](Index i) { out[i] = 2 * in[i]; }); });

  std::vector<std::string> devices = {"interp"};
  const std::vector<std::string> built = tack::backend_names();
  if (std::find(built.begin(), built.end(), "cpu") != built.end()) devices.push_back("cpu");
  for (const std::string& name : devices) {
    tack::Device dev = tack::device(name);
    std::vector<float> host = {1.5f, -2.0f, 3.25f};
    tack::Array in = dev.from_host(host);
    tack::Array out = dev.zeros(tack::DType::F32, {3});
    twice(out, in);
    float got = out.to_host<float>()[2];
    if (got != 6.5f) {
      std::fprintf(stderr, "consumer: out[2] is %g on %s, expected 6.5\n", got, name.c_str());
      return 1;
    }
    std::printf("consumer: OK on %s\n", dev.name().c_str());
  }
  return 0;
}
