// Tack: write a kernel once in C++, run it on every device the process finds.
#pragma once

#include <tack/about.hpp>
#include <tack/array.hpp>
#include <tack/autodiff.hpp>
#include <tack/compile.hpp>
#include <tack/device.hpp>
#include <tack/dtype.hpp>
#include <tack/error.hpp>
#include <tack/kernel.hpp>
#include <tack/lang.hpp>
#include <tack/random.hpp>
#include <tack/reflect.hpp>
#include <tack/texture.hpp>
#include <tack/var_of.hpp>
#include <tack/vector.hpp>
