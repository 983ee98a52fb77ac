// The host loop that drives the lattice-Boltzmann kernels of lbm_kernels.hpp.
#include "lbm.hpp"

#include "lbm_kernels.hpp"

#include <cmath>
#include <utility>

using namespace tack::lang;

namespace cavity {
namespace {

tack::Kernel stream_collide = kernels::stream_collide_kernel();
tack::Kernel moments = kernels::moments_kernel();
tack::Kernel residual_terms = kernels::residual_terms_kernel();

}  // namespace

Lattice::Lattice(tack::Device dev, std::int64_t n, float lid_u, float tau)
    : dev_(dev), n_(n), lid_u_(lid_u), omega_(1.0f / tau) {
  using tack::DType;
  f_ = dev_.zeros(DType::F32, {9, n, n});  // g = 0: at rest, density 1
  f_next_ = dev_.zeros(DType::F32, {9, n, n});
  for (tack::Array* a : {&ux_, &uy_, &rho_, &ux_prev_, &uy_prev_, &change2_, &magnitude2_})
    *a = dev_.zeros(DType::F32, {n, n});
}

void Lattice::step(std::int64_t count) {
  for (std::int64_t s = 0; s < count; ++s) {
    stream_collide(f_next_, f_, omega_, lid_u_);
    std::swap(f_, f_next_);  // swaps the handles, not the data
  }
  steps_ += count;
}

void Lattice::update_moments() { moments(rho_, ux_, uy_, f_); }

double Lattice::residual() {
  update_moments();
  residual_terms(change2_, magnitude2_, ux_prev_, uy_prev_, ux_, uy_);
  const double change = change2_.sum<double>(), magnitude = magnitude2_.sum<double>();
  const bool first = !have_prev_;
  have_prev_ = true;
  if (first || magnitude == 0) return 1.0;
  return std::sqrt(change / magnitude);
}

Velocity Lattice::velocity() {
  update_moments();
  return {n_, ux_.to_host<float>(), uy_.to_host<float>()};
}

}  // namespace cavity
