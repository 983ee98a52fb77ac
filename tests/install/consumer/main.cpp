// Makes a kernel, runs it on the interpreter and checks one value.
#include <tack/tack.hpp>

#include <cstdio>
#include <vector>

int main() {
  using namespace tack::lang;
  auto twice =
      tack::kernel("twice", [](Array out, Array in) { parallel_for(in.size(), [&](Index i) { out[i] = 2 * in[i]; }); });

  tack::Device dev = tack::device("interp");
  std::vector<float> host = {1.5f, -2.0f, 3.25f};
  tack::Array in = dev.from_host(host);
  tack::Array out = dev.zeros(tack::DType::F32, {3});
  twice(out, in);

  float got = out.to_host<float>()[2];
  if (got != 6.5f) {
    std::fprintf(stderr, "consumer: out[2] is %g, expected 6.5\n", got);
    return 1;
  }
  std::printf("consumer: OK on %s\n", dev.name().c_str());
  return 0;
}
