// The exceptions Tack raises for user errors; every one derives from tack::Error.
#pragma once

#include <stdexcept>
#include <string>

namespace tack {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value is wrong: a size, a shape, an option, an index, an argument count.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A dtype is wrong or ambiguous: mismatched arguments, mixes that need a cast.
class TypeError : public Error {
 public:
  using Error::Error;
};

// An array access out of range, found by debug-mode checks or a host index.
class IndexError : public Error {
 public:
  using Error::Error;
};

// A backend's compiler rejected generated code; the message holds the log.
class CompileError : public Error {
 public:
  using Error::Error;
};

// A driver call failed at run time; the message names the call.
class BackendError : public Error {
 public:
  using Error::Error;
};

// A backend cannot be used here: its driver, compiler or device is missing.
class BackendUnavailable : public Error {
 public:
  using Error::Error;
};

// A kernel cannot be differentiated (tack::adjoint, tack::jvp, a Tape): the message names the construct (a
// barrier, a while loop, an in-place update whose adjoint needs the old values, ...) and its line.
class NotDifferentiable : public Error {
 public:
  using Error::Error;
};

}  // namespace tack
