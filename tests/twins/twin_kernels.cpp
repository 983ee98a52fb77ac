// Kernels whose operands C++ compilers evaluate in different orders (GCC's
// arguments right to left, Clang's left to right), printed as their traced IR
// (what the kernel's hash and every cache key are made of) and their typed IR.
// The test twins.compilers_agree (compilers_agree.cmake) builds this file with
// the project's compiler and with the other of GCC and Clang and wants the two
// outputs identical: the trace's canonical order (src/lang/canonical_order.hpp)
// makes the IR independent of the compiler that built the kernel.
#include "cavity/lbm_kernels.hpp"
#include "mandelbrot/mandelbrot_kernel.hpp"

#include <tack/tack.hpp>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace tack::lang;

namespace {

struct Twin {
  tack::Kernel kernel;
  std::vector<tack::KernelArg> args;  // specs to type it with
};

tack::ArraySpec f32s(int rank = 1) { return tack::ArraySpec{tack::DType::F32, rank}; }
tack::ArraySpec i32s(int rank = 1) { return tack::ArraySpec{tack::DType::I32, rank}; }

std::vector<Twin> twins() {
  std::vector<Twin> out;
  // Loads in the operands of operators and calls, nested loads (an index read first).
  out.push_back({tack::kernel("saxpy", [](Array y, Array x, Scalar a) {
                   parallel_for(y.size(), [&](Index i) { y[i] = a * x[i] + y[i]; });
                 }),
                 {f32s(), f32s(), tack::ScalarSpec{tack::DType::F32}}});
  out.push_back({tack::kernel("gather_mix", [](Array out, Array data, ArrayOf<i32> idx, Array w) {
                   parallel_for(out.size(), [&](Index i) {
                     out[i] = data[idx[i]] + data[idx[i] + 1] * w[i] -
                              select(w[i] > data[i], fma(data[i], w[i], out[i]), clamp(out[i], w[i], data[i]));
                   });
                 }),
                 {f32s(), f32s(), i32s(), f32s()}});
  out.push_back({tack::kernel("jacobi", [](Array out, Array in) {
                   parallel_for({in.shape(0) - 2, in.shape(1) - 2}, [&](Index i, Index j) {
                     out(i + 1, j + 1) = 0.25f * (in(i, j + 1) + in(i + 2, j + 1) + in(i + 1, j) + in(i + 1, j + 2));
                   });
                 }),
                 {f32s(2), f32s(2)}});
  // Compound assignments, a Var read in a loop, values made over several statements.
  out.push_back({tack::kernel("dot_rows", [](Array out, Array a, Array b, Array c) {
                   parallel_for(out.size(), [&](Index i) {
                     Var s = 0.0f;
                     for_range(0, a.shape(1), [&](Index k) { s += a(i, k) * b(k, i) - c[k]; });
                     Value t = a(i, 0) * b(0, i);
                     Value u = c[i] + t;
                     out[i] += s * u + t;
                   });
                 }),
                 {f32s(), f32s(2), f32s(2), f32s()}});
  // Operators C++17 sequences left to right (<<, >>, &&, ||), atomics, prints.
  out.push_back({tack::kernel("bits_and_atomics", [](ArrayOf<i32> out, ArrayOf<i32> a, ArrayOf<i32> b) {
                   parallel_for(a.size(), [&](Index i) {
                     out[i] = (a[i] << b[i]) | (b[i] >> a[i]) ^ (a[i] * b[i]);
                     Value old = atomic_cas(out, b[i] & 7, a[i] + b[i], a[i] - b[i]);
                     atomic_add(out, a[i] & 7, old + b[i]);
                     print_if((a[i] > 0 && b[i] > 0) || a[i] == b[i], "{} {}", a[i] * 2, b[i] + a[i]);
                   });
                 }),
                 {i32s(), i32s(), i32s()}});
  // Shared memory, a barrier and a group reduction.
  out.push_back({tack::kernel("block_sum", [](Array out, Array in) {
                   workgroup_for(out.size(), [&](Group g) {
                     Value i = g.global_id();
                     SharedArray tile = g.shared<float>(256);
                     tile[g.local_id()] = select(i < in.size(), in[min(i, in.size() - 1)], 0.0f) * in[0];
                     g.barrier();
                     Value s = g.reduce_add(tile[g.local_id()] + tile[255 - g.local_id()]);
                     if_(g.local_id() == 0, [&] { out[g.group_id()] = s + in[g.group_id()]; });
                   });
                 }),
                 {f32s(), f32s()}});
  // The examples' kernels.
  out.push_back({mandelbrot_kernel(), {f32s(2), tack::ScalarSpec{tack::DType::I32}}});
  out.push_back({cavity::kernels::stream_collide_kernel(),
                 {f32s(3), f32s(3), tack::ScalarSpec{tack::DType::F32}, tack::ScalarSpec{tack::DType::F32}}});
  out.push_back({cavity::kernels::moments_kernel(), {f32s(2), f32s(2), f32s(2), f32s(3)}});
  out.push_back({cavity::kernels::residual_terms_kernel(), {f32s(), f32s(), f32s(), f32s(), f32s(), f32s()}});
  return out;
}

}  // namespace

int main() {
  for (const Twin& t : twins()) {
    std::cout << "==== " << t.kernel.name() << " ====\n" << t.kernel.ir() << "---- typed\n";
    std::cout << tack::inspect_args(t.kernel, "interp", t.args).typed_ir;
  }
  return 0;
}
