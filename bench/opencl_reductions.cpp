// Array::sum/min/max of 2^24 f32 on the opencl device (PoCL on this machine):
// the median wall and user CPU time of `reps` calls each (default 11), after one
// call of each that builds (or loads) the reduction kernels. A plain program
// linking Tack alone.
//
//   tack_bench_opencl_reductions [reps]
#include <tack/tack.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
double user_ms() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_utime.tv_sec) * 1e3 + static_cast<double>(r.ru_utime.tv_usec) * 1e-3;
}
}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
  tack::Device d = tack::device("opencl");
  std::vector<float> v(std::size_t{1} << 24);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 2654435761u) % 1000) * 0.001f;
  tack::Array a = d.from_host(v);
  volatile float sink = a.sum<float>() + a.min<float>() + a.max<float>();
  const char* names[] = {"sum", "min", "max"};
  for (int op = 0; op < 3; ++op) {
    std::vector<double> wall, user;
    for (int r = 0; r < reps; ++r) {
      const double u0 = user_ms();
      const auto t0 = std::chrono::steady_clock::now();
      sink = op == 0 ? a.sum<float>() : op == 1 ? a.min<float>() : a.max<float>();
      wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      user.push_back(user_ms() - u0);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(user.begin(), user.end());
    std::printf("%s of 2^24 f32: median wall %.2f ms, median user CPU %.2f ms (result %g)\n", names[op],
                wall[wall.size() / 2], user[user.size() / 2], static_cast<double>(sink));
  }
}
