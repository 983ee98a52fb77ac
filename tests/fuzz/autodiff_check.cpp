// tack_fuzz --autodiff: see autodiff_check.hpp. Every array of the generated kernel takes part: the kernel is the
// function from the five arrays' contents before the launch to their contents after it, the loss a random
// weighting of the contents after. A check is inconclusive, and counted as such, where the loss is not finite or
// the differences at two step sizes disagree (a kink or jump of floor, abs, min, a cast or a select within a
// step of the point); the run fails when too few checks were conclusive, so it cannot pass by skipping.
#include "fuzz/autodiff_check.hpp"

#include "fuzz/kernel_generator.hpp"

#include <tack/tack.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace tack::fuzz {
namespace {

using Contents = std::array<std::vector<double>, 5>;

Contents random_contents(std::mt19937_64& rng, std::int64_t n) {
  std::uniform_real_distribution<double> d(-1, 1);
  Contents c;
  for (auto& a : c) {
    a.resize(static_cast<std::size_t>(n));
    for (double& x : a) x = d(rng);
  }
  return c;
}

std::vector<Array> upload(const Device& dev, const Contents& c) {
  std::vector<Array> out;
  for (const auto& a : c) out.push_back(dev.from_host(a));
  return out;
}

Contents download(const std::vector<Array>& arrays) {
  Contents c;
  for (std::size_t a = 0; a < 5; ++a) c[a] = arrays[a].to_host<double>();
  return c;
}

void launch(const Kernel& k, const std::vector<Array>& arrays, double s, const std::vector<Array>& extra = {}) {
  std::vector<KernelArg> args;
  for (const Array& a : arrays) args.emplace_back(a);
  args.emplace_back(s);
  for (const Array& a : extra) args.emplace_back(a);
  k.launch(args);
}

double dot(const Contents& a, const Contents& b, double* magnitude = nullptr) {
  double sum = 0, mag = 0;
  for (std::size_t k = 0; k < 5; ++k)
    for (std::size_t i = 0; i < a[k].size(); ++i) {
      sum += a[k][i] * b[k][i];
      mag += std::abs(a[k][i] * b[k][i]);
    }
  if (magnitude) *magnitude = mag;
  return sum;
}

Contents along(const Contents& x, const Contents& v, double h) {
  Contents out = x;
  for (std::size_t k = 0; k < 5; ++k)
    for (std::size_t i = 0; i < x[k].size(); ++i) out[k][i] += h * v[k][i];
  return out;
}

struct Tally {
  int dot_checked = 0, dot_inconclusive = 0, fd_checked = 0, fd_inconclusive = 0, failures = 0;
};

// One seed on one device; returns false on a failure (printed).
bool check_seed(const Program& p, const Device& dev, Tally& t, bool print) {
  const Kernel k = make_kernel(p);
  const double s = std::bit_cast<double>(p.scalar_bits);
  std::mt19937_64 rng(p.seed * 31 + 7);
  const Contents x = random_contents(rng, p.n), w = random_contents(rng, p.n), v = random_contents(rng, p.n);
  auto fail = [&](const std::string& what) {
    std::printf("[fuzz autodiff] seed %llu on %s: %s\n", static_cast<unsigned long long>(p.seed), dev.name().c_str(),
                what.c_str());
    if (print) std::printf("%s", to_cpp(p).c_str());
    ++t.failures;
    return false;
  };
  auto loss = [&](const Contents& at) {
    std::vector<Array> arrays = upload(dev, at);
    launch(k, arrays, s);
    return dot(download(arrays), w);
  };
  Contents jtw, jv;
  try {
    std::vector<Array> arrays = upload(dev, x);
    launch(k, arrays, s);
    std::vector<Array> grads = upload(dev, w);
    launch(adjoint(k), arrays, s, grads);
    jtw = download(grads);
    std::vector<Array> fresh = upload(dev, x), tangents = upload(dev, v);
    launch(jvp(k), fresh, s, tangents);
    jv = download(tangents);
  } catch (const Error& e) {
    return fail(std::string("the derivative kernels failed: ") + e.what());
  }
  // <J v, w> == <v, J^T w>: both computed here, in the same order of operations up to the atomics' order.
  double left_mag = 0, right_mag = 0;
  const double left = dot(jv, w, &left_mag), right = dot(v, jtw, &right_mag);
  if (!std::isfinite(left) || !std::isfinite(right) || !std::isfinite(left_mag + right_mag)) {
    ++t.dot_inconclusive;
    ++t.fd_inconclusive;
    return true;
  }
  ++t.dot_checked;
  const double scale = std::max(left_mag + right_mag, 1e-300);
  if (std::abs(left - right) > 1e-9 * scale)
    return fail("dot-product test: <J v, w> = " + std::to_string(left) + " but <v, J^T w> = " + std::to_string(right));
  // The directional derivative along v by central differences at two steps; they must agree to be believed.
  auto central = [&](double h) { return (loss(along(x, v, h)) - loss(along(x, v, -h))) / (2 * h); };
  const double coarse = central(1e-5), fine = central(2.5e-6);
  const double tol = 1e-5 * std::max(1.0, std::max(std::abs(fine), right_mag));
  if (!std::isfinite(coarse) || !std::isfinite(fine) || std::abs(coarse - fine) > tol) {
    ++t.fd_inconclusive;
    return true;
  }
  ++t.fd_checked;
  if (std::abs(fine - right) > tol)
    return fail("central differences give " + std::to_string(fine) + " along v, the adjoint " + std::to_string(right));
  return true;
}

}  // namespace

int run_autodiff(std::int64_t start, std::int64_t count, bool print) {
  GeneratorLimits limits;
  limits.dtypes = {DType::I32, DType::I64, DType::F64};
  limits.atomic_dtypes = {DType::I32, DType::I64, DType::F64};
  limits.differentiable = true;
  std::vector<Device> devices;
  for (const char* name : {"interp", "cpu", "opencl"}) {
    try {
      Device d = device(name);
      if (!d.capabilities().supports(DType::F64) || !d.capabilities().supports_atomic(DType::F64)) {
        std::printf("[fuzz autodiff] %s skipped: no f64 arrays or f64 atomics\n", name);
        continue;
      }
      devices.push_back(d);
    } catch (const BackendUnavailable& e) {
      std::printf("[fuzz autodiff] %s skipped: %s\n", name, e.what());
    }
  }
  if (devices.empty() || devices.front().name() != "interp") return 77;
  Tally t;
  for (std::int64_t seed = start; seed < start + count; ++seed) {
    const Program p = generate(static_cast<std::uint64_t>(seed), limits, false);
    for (const Device& d : devices) check_seed(p, d, t, print);
  }
  const int runs = static_cast<int>(count) * static_cast<int>(devices.size());
  std::printf(
      "[fuzz autodiff] seeds %lld..%lld on %zu devices: dot-product test %d agreed (%d inconclusive), central "
      "differences %d agreed (%d inconclusive), %d failed\n",
      static_cast<long long>(start), static_cast<long long>(start + count - 1), devices.size(),
      t.dot_checked - t.failures, t.dot_inconclusive, t.fd_checked, t.fd_inconclusive, t.failures);
  // A run that compared too little proves nothing: most kernels must be smooth and finite at their inputs.
  if (t.dot_checked < runs / 2 || t.fd_checked < runs / 3) {
    std::printf("[fuzz autodiff] too few conclusive checks (%d and %d of %d runs)\n", t.dot_checked, t.fd_checked,
                runs);
    return 1;
  }
  return t.failures ? 1 : 0;
}

}  // namespace tack::fuzz
