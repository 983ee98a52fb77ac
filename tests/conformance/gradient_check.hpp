// Gradient checks for derivative kernels (docs/autodiff.md): a kernel's adjoint against central differences
// of the kernel itself, and the dot-product test between its tangent and adjoint kernels, all in f64.
//
// A kernel is seen as the function from every array's contents before the launch to every array's contents
// after it; the loss is a fixed random weighting w of the contents after. tack::adjoint, seeded with w, gives
// the loss's gradient with respect to the contents before (the arrays the kernel only reads keep their seed
// w plus what the kernel's reads add); tack::jvp along v gives J v. Integer arrays take no part.
#pragma once

#include <tack/tack.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tack::conformance {

// One argument: an array (f64, f32 or i32, its values held as doubles) or a scalar.
struct GradArg {
  bool is_array = true;
  tack::DType dtype = tack::DType::F64;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
  double scalar = 0;

  static GradArg array(std::vector<double> v, tack::DType t = tack::DType::F64) {
    GradArg a;
    a.dtype = t;
    a.shape = {static_cast<std::int64_t>(v.size())};
    a.values = std::move(v);
    return a;
  }
  static GradArg array2d(std::vector<double> v, std::int64_t rows, std::int64_t cols) {
    GradArg a = array(std::move(v));
    a.shape = {rows, cols};
    return a;
  }
  static GradArg number(double s) {
    GradArg a;
    a.is_array = false;
    a.scalar = s;
    return a;
  }
  bool differentiable() const { return is_array && tack::is_float(dtype); }
};

// Values in [lo, hi), the same on every run.
inline std::vector<double> grad_values(std::size_t n, double lo, double hi, std::uint32_t seed) {
  std::vector<double> v(n);
  for (double& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<double>(seed >> 8) / static_cast<double>(1u << 24);
  }
  return v;
}

class GradientCheck {
 public:
  GradientCheck(tack::Device d, tack::Kernel k, std::vector<GradArg> args)
      : d_(std::move(d)), k_(std::move(k)), args_(std::move(args)) {
    std::uint32_t seed = 7;
    for (const GradArg& a : args_) {
      weights_.push_back(a.differentiable() ? grad_values(a.values.size(), -1, 1, seed++) : std::vector<double>{});
      directions_.push_back(a.differentiable() ? grad_values(a.values.size(), -1, 1, 100 + seed++)
                                               : std::vector<double>{});
    }
  }

  // The contents of every array after the kernel ran on `values` (by argument; empty for scalars).
  std::vector<std::vector<double>> run(const std::vector<std::vector<double>>& values) const {
    std::vector<tack::Array> arrays = upload(values);
    launch(k_, arrays, {});
    return download(arrays);
  }

  double loss(const std::vector<std::vector<double>>& values) const {
    auto after = run(values);
    double sum = 0;
    for (std::size_t a = 0; a < args_.size(); ++a)
      for (std::size_t i = 0; i < weights_[a].size(); ++i) sum += weights_[a][i] * after[a][i];
    return sum;
  }

  // The adjoint's gradient of the loss with respect to every array's contents before the kernel.
  std::vector<std::vector<double>> adjoint_gradient() const {
    std::vector<tack::Array> arrays = upload(initial());
    launch(k_, arrays, {});
    std::vector<tack::Array> grads = upload(weights_or_zero());
    launch(tack::adjoint(k_), arrays, grads);
    return download(grads);
  }

  // J v: the tangent kernel's tangents after it ran along the directions.
  std::vector<std::vector<double>> tangent() const {
    std::vector<tack::Array> arrays = upload(initial());
    std::vector<tack::Array> tangents = upload(directions_or_zero());
    launch(tack::jvp(k_), arrays, tangents);
    return download(tangents);
  }

  // Every float element's adjoint gradient within `tolerance` (relative, at least absolute) of the central
  // difference with step h times max(1, |x|); returns how many were compared.
  int expect_matches_differences(double h = 1e-6, double tolerance = 1e-6) const {
    auto grad = adjoint_gradient();
    int compared = 0;
    for (std::size_t a = 0; a < args_.size(); ++a) {
      if (!args_[a].differentiable()) continue;
      for (std::size_t i = 0; i < args_[a].values.size(); ++i) {
        auto plus = initial(), minus = initial();
        const double step = h * std::max(1.0, std::abs(plus[a][i]));
        plus[a][i] += step;
        minus[a][i] -= step;
        const double fd = (loss(plus) - loss(minus)) / (2 * step);
        EXPECT_NEAR(grad[a][i], fd, tolerance * std::max(1.0, std::abs(fd)))
            << "d loss / d argument " << a << "[" << i << "] on " << d_.name();
        ++compared;
      }
    }
    return compared;
  }

  // <J v, w> == <v, J^T w>, to `tolerance` relative to the sum of the terms' magnitudes.
  void expect_dot_product_test(double tolerance = 1e-12) const {
    auto jv = tangent();
    auto jtw = adjoint_gradient();
    double left = 0, right = 0, scale = 0;
    for (std::size_t a = 0; a < args_.size(); ++a)
      for (std::size_t i = 0; i < weights_[a].size(); ++i) {
        left += jv[a][i] * weights_[a][i];
        right += directions_[a][i] * jtw[a][i];
        scale += std::abs(jv[a][i] * weights_[a][i]) + std::abs(directions_[a][i] * jtw[a][i]);
      }
    EXPECT_NEAR(left, right, tolerance * std::max(scale, 1e-300)) << "<J v, w> against <v, J^T w> on " << d_.name();
    EXPECT_GT(scale, 0) << "the dot-product test compared nothing";
  }

  std::vector<std::vector<double>> initial() const {
    std::vector<std::vector<double>> v;
    for (const GradArg& a : args_) v.push_back(a.values);
    return v;
  }

 private:
  std::vector<std::vector<double>> weights_or_zero() const { return filled(weights_); }
  std::vector<std::vector<double>> directions_or_zero() const { return filled(directions_); }
  std::vector<std::vector<double>> filled(const std::vector<std::vector<double>>& by_arg) const {
    std::vector<std::vector<double>> out;
    for (std::size_t a = 0; a < args_.size(); ++a)
      out.push_back(args_[a].differentiable() ? by_arg[a] : std::vector<double>(args_[a].values.size(), 0.0));
    return out;
  }

  std::vector<tack::Array> upload(const std::vector<std::vector<double>>& values) const {
    std::vector<tack::Array> out;
    for (std::size_t a = 0; a < args_.size(); ++a) {
      if (!args_[a].is_array) {
        out.emplace_back();
        continue;
      }
      const auto& v = values[a];
      switch (args_[a].dtype) {
        case tack::DType::F64: out.push_back(d_.from_host(v, args_[a].shape)); break;
        case tack::DType::F32:
          out.push_back(d_.from_host(std::vector<float>(v.begin(), v.end()), args_[a].shape));
          break;
        default: {
          std::vector<std::int32_t> n;
          for (double x : v) n.push_back(static_cast<std::int32_t>(x));
          out.push_back(d_.from_host(n, args_[a].shape));
        }
      }
    }
    return out;
  }

  std::vector<std::vector<double>> download(const std::vector<tack::Array>& arrays) const {
    std::vector<std::vector<double>> out;
    for (std::size_t a = 0; a < args_.size(); ++a) {
      if (!args_[a].is_array) {
        out.emplace_back();
      } else if (args_[a].dtype == tack::DType::F64) {
        out.push_back(arrays[a].to_host<double>());
      } else if (args_[a].dtype == tack::DType::F32) {
        auto f = arrays[a].to_host<float>();
        out.emplace_back(f.begin(), f.end());
      } else {
        auto n = arrays[a].to_host<std::int32_t>();
        out.emplace_back(n.begin(), n.end());
      }
    }
    return out;
  }

  // The kernel's arguments (arrays and scalars in order), then `extra` (gradients or tangents) if any.
  void launch(const tack::Kernel& k, const std::vector<tack::Array>& arrays,
              const std::vector<tack::Array>& extra) const {
    std::vector<tack::KernelArg> list;
    for (std::size_t a = 0; a < args_.size(); ++a)
      list.push_back(args_[a].is_array ? tack::KernelArg(arrays[a]) : tack::KernelArg(args_[a].scalar));
    for (std::size_t a = 0; a < args_.size(); ++a)
      if (args_[a].is_array && !extra.empty()) list.push_back(tack::KernelArg(extra[a]));
    k.launch(list);
  }

  tack::Device d_;
  tack::Kernel k_;
  std::vector<GradArg> args_;
  std::vector<std::vector<double>> weights_, directions_;
};

}  // namespace tack::conformance
