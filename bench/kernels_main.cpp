// tack_bench_kernels: every Tack kernel against its hand-written C++/OpenMP
// twin (stream.cpp, stencil.cpp, mandelbrot.cpp, raymarch.cpp, branches.cpp, transcendental.cpp,
// histogram.cpp) and the tiny-dispatch cost (dispatch.cpp), then a ratio table.
#include "common.hpp"

int main(int argc, char** argv) { return bench::run_with_summary(argc, argv); }
