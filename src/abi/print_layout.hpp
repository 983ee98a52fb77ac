// Where a kernel's prints go: the hidden arrays passes::lower_prints appends and
// the record layout in them, which the runtime sizes, binds and reads back.
#pragma once

#include "ir/ir.hpp"

#include <string>
#include <vector>

namespace tack::abi {

// Where each argument of a print goes: its storage array and word within the record.
struct PrintArg {
  DType dtype;     // the argument's own dtype, for formatting
  int column = 0;  // 0: the u32 words, else PrintLayout::columns[column - 1]
  int offset = 0;  // within the record of that array
};

struct PrintSite {
  std::string format;
  std::vector<PrintArg> args;
  ir::SourceLoc loc;
};

struct PrintColumn {
  DType dtype;  // U64, F32 or F64
  int param = -1;
  int width = 0;  // elements per record
};

struct PrintLayout {
  std::vector<PrintSite> sites;  // by site number
  int words_param = -1;          // -1: the kernel does not print
  int words_width = 0;           // u32 words per record, 3 + the widest print's 32-bit arguments
  std::vector<PrintColumn> columns;
  bool active() const { return words_param >= 0; }
};

}  // namespace tack::abi
