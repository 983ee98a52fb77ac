// print refused at trace time: a format whose {} do not match the arguments, a
// lone brace, and a print outside the kernel's parallel loop; each names the
// kernel and the line.
#include "errors/error_helpers.hpp"
#include "support/scoped_env.hpp"

#include <tack/tack.hpp>

#include <string>

using namespace tack::lang;

namespace {

TEST(Print, FormatWithMoreBracesThanArguments) {
  const int line = __LINE__ + 2;
  auto k = tack::kernel("bad_format",
                        [](Array out) { parallel_for(out.size(), [&](Index i) { print("i = {} j = {}", i); }); });
  // Traced at the first call.
  EXPECT_TACK_ERROR(k(tack::device("interp").zeros(tack::DType::F32, {2})), tack::InvalidArgument,
                    "kernel 'bad_format'", "print.cpp:" + std::to_string(line),
                    "\"i = {} j = {}\" has 2 {} but 1 argument was given");
}

TEST(Print, FormatWithFewerBracesThanArguments) {
  EXPECT_TACK_ERROR(
      {
        auto k =
            tack::kernel("extra_arg", [](Array out) { parallel_for(out.size(), [&](Index i) { print("i", i, i); }); });
        k(tack::device("interp").zeros(tack::DType::F32, {2}));
      },
      tack::InvalidArgument, "kernel 'extra_arg'", "has 0 {} but 2 arguments were given");
}

TEST(Print, LoneBrace) {
  EXPECT_TACK_ERROR(
      {
        auto k = tack::kernel(
            "lone_brace", [](Array out) { parallel_for(out.size(), [&](Index i) { print_if(i > 0, "{ {}", i); }); });
        k(tack::device("interp").zeros(tack::DType::F32, {2}));
      },
      tack::InvalidArgument, "kernel 'lone_brace'", "has a lone '{' or '}'", "write {{ or }}");
}

TEST(Print, OutsideTheParallelLoop) {
  EXPECT_TACK_ERROR(
      {
        auto k = tack::kernel("print_outside", [](Array out) {
          print("hello");
          parallel_for(out.size(), [&](Index i) { out[i] = 0; });
        });
        k(tack::device("interp").zeros(tack::DType::F32, {2}));
      },
      tack::InvalidArgument, "kernel 'print_outside'", "print is a statement");
}

TEST(Print, BadLineCapacity) {
  auto k = tack::kernel("print_env", [](Array out) { parallel_for(out.size(), [&](Index i) { print("{}", i); }); });
  tack_test::ScopedEnv lines("TACK_PRINT_LINES", "lots");  // restored however the test ends
  EXPECT_TACK_ERROR(k(tack::device("interp").zeros(tack::DType::F32, {2})), tack::InvalidArgument,
                    "TACK_PRINT_LINES=\"lots\" is not a number of lines");
}

}  // namespace
