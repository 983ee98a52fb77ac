// A base for the classes that are one resource by identity (a driver context,
// a stream and its queue, a thread pool, a loaded program): deriving from it
// says they are neither copied nor moved, since others keep their address and
// their destructor releases the resource once.
#pragma once

namespace tack::support {

class NoCopy {
 public:
  NoCopy(const NoCopy&) = delete;
  NoCopy& operator=(const NoCopy&) = delete;

 protected:
  NoCopy() = default;
  ~NoCopy() = default;
};

}  // namespace tack::support
