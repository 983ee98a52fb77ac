// What about one argument selects a kernel's compiled code: its entry in a
// variant's signature. check_call builds one per argument and specialize reads
// it back into the typing request; the bit layout is written once, here, with
// encode and decode side by side (tests/unit/test_signature.cpp pins it).
#pragma once

#include <tack/arg_kind.hpp>
#include <tack/dtype.hpp>

#include <cstdint>

namespace tack::runtime {

// The shape of one element of an array. Scalar elements only today; the
// language's vectors and matrices (issue 29) will set it, and it is in the key
// already so that they change no layout.
struct ElementShape {
  std::uint8_t rows = 0;  // 0: a scalar element, else a vector's or matrix's rows (2 to 4)
  std::uint8_t cols = 0;  // 0: a scalar or a vector, else a matrix's columns (2 to 4)
  bool operator==(const ElementShape&) const = default;
};

struct ArgKey {
  ArgKind kind = ArgKind::Scalar;
  DType dtype = DType::F32;
  int rank = 0;                   // arrays: 1 to 4; 0 for the other kinds
  bool weak = false;              // scalars: adapts to the other operand as a literal does (a Python number)
  bool hardware_texture = false;  // textures: sampled by the device's texture unit, else in software
  ElementShape element;           // arrays: what one element is
  bool operator==(const ArgKey&) const = default;

  // 16 bits, one field each: kind 0-1, dtype 2-5, rank 6-8, weak 9, hardware_texture 10, element rows
  // 11-12 and cols 13-14 (a dimension n as n - 1, none as 0); bit 15 is free.
  std::uint16_t encode() const {
    return static_cast<std::uint16_t>(static_cast<unsigned>(kind) | static_cast<unsigned>(dtype) << 2 |
                                      static_cast<unsigned>(rank) << 6 | unsigned{weak} << 9 |
                                      unsigned{hardware_texture} << 10 | element_bits(element.rows) << 11 |
                                      element_bits(element.cols) << 13);
  }
  static ArgKey decode(std::uint16_t bits) {
    ArgKey k;
    k.kind = static_cast<ArgKind>(bits & 0x3);
    k.dtype = static_cast<DType>(bits >> 2 & 0xF);
    k.rank = bits >> 6 & 0x7;
    k.weak = (bits >> 9 & 1) != 0;
    k.hardware_texture = (bits >> 10 & 1) != 0;
    k.element.rows = element_dim(bits >> 11 & 0x3);
    k.element.cols = element_dim(bits >> 13 & 0x3);
    return k;
  }

 private:
  static unsigned element_bits(std::uint8_t dim) { return dim ? dim - 1u : 0u; }
  static std::uint8_t element_dim(unsigned bits) { return static_cast<std::uint8_t>(bits ? bits + 1 : 0); }
};

}  // namespace tack::runtime
