// Differentiable kernels (docs/autodiff.md): a kernel's adjoint (reverse mode) and its tangent kernel
// (forward mode), each a tack::Kernel made from the primal's typed IR at each call's specialization, and
// compiled, cached and launched like any kernel.
#pragma once

#include <tack/array.hpp>
#include <tack/kernel.hpp>

#include <memory>
#include <span>
#include <utility>

namespace tack {

// The adjoint of k: called with k's arguments followed by one gradient array per array parameter of k, in
// order, each of its primal's dtype and shape. It reads the gradients of the arrays k writes (clearing them
// where k's stores overwrote the value) and adds into the gradients of the arrays k reads. Run it after k,
// with k's arrays as k left them. Scalars get no gradient; integer arrays' gradients are left as they are.
// Throws NotDifferentiable, at its first call, for a construct it cannot differentiate.
Kernel adjoint(const Kernel& k);

// The tangent (Jacobian-vector product) kernel of k: called with k's arguments followed by one tangent array
// per array parameter of k. It does k's work and, where k stores y, stores the derivative of y along the
// tangents of the arrays k reads into y's tangent array.
Kernel jvp(const Kernel& k);

namespace detail {
struct TapeState;
}

// Records kernel launches for a backward pass (docs/autodiff.md, "The Tape"). While a Recording from record()
// lives, every launch this thread makes that uses an array requiring a gradient is kept, with its arguments;
// backward() runs their adjoints in reverse order, adding into the arrays' grad(). An array a recorded launch
// read and a later one overwrites is copied first, so each adjoint reads the values its launch read.
class Tape {
 public:
  Tape();
  ~Tape();
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // Ends the recording when it goes out of scope (or at stop()); recordings nest, the innermost records.
  class Recording {
   public:
    Recording(Recording&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
    Recording& operator=(Recording&&) = delete;
    ~Recording() { stop(); }
    void stop();

   private:
    friend class Tape;
    explicit Recording(detail::TapeState* s) : state_(s) {}
    detail::TapeState* state_;
  };
  [[nodiscard]] Recording record();

  // Seeds loss.grad() with ones, then runs the recorded launches' adjoints, the last first.
  void backward(const Array& loss);
  // Sets each array's grad() to its seed (an array of its dtype and shape), then runs the adjoints.
  void backward(std::span<const std::pair<Array, Array>> seeds);
  // Sets the gradient of every array the recorded launches used to zero.
  void zero();
  // Forgets the recorded launches (and the copies kept for them).
  void reset();
  // How many launches are recorded.
  std::size_t size() const;

 private:
  std::unique_ptr<detail::TapeState> state_;
};

}  // namespace tack
