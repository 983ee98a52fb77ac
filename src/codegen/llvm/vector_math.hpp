// Which vector math library the CPU code generator may call for a
// transcendental function of a vector (exp, log, sin, pow, ...): glibc's
// libmvec, whose variants are named by the vector's register width
// ("_ZGVeN16v_sinf": ISA 'e', 16 lanes, one vector operand). The backend
// offers it where the process could load libmvec (backends/cpu); elsewhere the
// C library is called once per lane.
#pragma once

namespace tack::codegen {

// libmvec's ISA letter for vectors of 128, 256 and 512 bits ('b' SSE, 'c' AVX,
// 'd' AVX2, 'e' AVX-512), or 0 where that width calls libm lane by lane, with
// the scalar path's results bit for bit. libmvec's functions are within 4 ulp
// of the correctly rounded result (docs/semantics.md).
struct VectorMath {
  char isa_128 = 0;
  char isa_256 = 0;
  char isa_512 = 0;
};

}  // namespace tack::codegen
