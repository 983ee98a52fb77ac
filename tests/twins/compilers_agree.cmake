# ctest twins.compilers_agree (tests/twins/CMakeLists.txt): builds twin_kernels.cpp
# with the other of GCC and Clang than the project's compiler, against the built
# libtack, and wants its output (each kernel's traced and typed IR) to be the
# output of BUILT, the project compiler's build of the same file.
#
#   cmake -DBUILT=... -DSOURCE=... -DINCLUDE_DIRS=... -DLIBRARY=... -DCXX_COMPILER_ID=...
#         [-DCXX_COMPILER_LAUNCHER=ccache] [-DCXX_FLAGS=...] [-DOTHER_CXX=clang++-15]
#         -DWORK_DIR=... -P compilers_agree.cmake
#
# Prints "twins.compilers_agree: skipped: <why>" (which the test counts as a
# skip) when there is no other compiler that builds C++20 against this
# standard library (clang++-14 cannot, lacking std::source_location there), or
# in a sanitizer build.

cmake_minimum_required(VERSION 3.20)

function(skip why)
  message("twins.compilers_agree: skipped: ${why}")
endfunction()

if(CXX_FLAGS MATCHES "-fsanitize")
  # libtack then needs its compiler's sanitizer runtime, which the other's would not mix with.
  skip("a sanitizer build (CMAKE_CXX_FLAGS: ${CXX_FLAGS})")
  return()
endif()
# The other compiler family's candidates, newest first.
if(CXX_COMPILER_ID STREQUAL "GNU")
  set(family clang++)
elseif(CXX_COMPILER_ID MATCHES "Clang")
  set(family g++)
else()
  skip("the project compiler is ${CXX_COMPILER_ID}; the test compares GCC with Clang")
  return()
endif()
set(candidates)
if(OTHER_CXX)
  set(candidates ${OTHER_CXX})
else()
  foreach(version RANGE 22 12 -1)
    list(APPEND candidates ${family}-${version})
  endforeach()
  list(APPEND candidates ${family})
endif()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
# The probe: what Tack's public headers need that an older compiler may not have with this library.
file(WRITE ${WORK_DIR}/probe.cpp
     "#include <source_location>\nint main() { return std::source_location::current().line() > 0 ? 0 : 1; }\n")
set(other)
set(refused)
foreach(name ${candidates})
  find_program(path_${name} NAMES ${name} NO_CACHE)
  if(NOT path_${name})
    continue()
  endif()
  execute_process(COMMAND ${path_${name}} -std=c++20 ${WORK_DIR}/probe.cpp -o ${WORK_DIR}/probe
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(other ${path_${name}})
    break()
  endif()
  list(APPEND refused ${name})
endforeach()
if(NOT other)
  if(refused)
    skip("no ${family} builds C++20's std::source_location here (tried: ${refused})")
  else()
    string(REPLACE ";" ", " looked "${candidates}")
    skip("no ${family} found (looked for ${looked})")
  endif()
  return()
endif()

set(includes)
foreach(dir ${INCLUDE_DIRS})
  list(APPEND includes -I${dir})
endforeach()
get_filename_component(library_dir ${LIBRARY} DIRECTORY)
set(program ${WORK_DIR}/twin_kernels_other)
execute_process(COMMAND ${CXX_COMPILER_LAUNCHER} ${other} -std=c++20 ${includes} ${SOURCE} -o ${program} ${LIBRARY}
                        -Wl,-rpath,${library_dir} -pthread
                RESULT_VARIABLE rc ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "twins.compilers_agree: ${other} could not build ${SOURCE}:\n${errors}")
endif()
message("twins.compilers_agree: built the twins with ${other}")

foreach(which built other)
  if(which STREQUAL "built")
    set(exe ${BUILT})
  else()
    set(exe ${program})
  endif()
  execute_process(COMMAND ${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out_${which} ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "twins.compilers_agree: ${exe} failed (${rc}):\n${err}")
  endif()
  file(WRITE ${WORK_DIR}/${which}.txt "${out_${which}}")
endforeach()

if(NOT out_built STREQUAL out_other)
  # The first line that differs, and the kernel it is in (line by line with
  # string(FIND): the IR's brackets would confuse CMake's lists).
  set(kernel "?")
  set(rest_built "${out_built}")
  set(rest_other "${out_other}")
  while(TRUE)
    string(FIND "${rest_built}" "\n" end_built)
    string(FIND "${rest_other}" "\n" end_other)
    string(SUBSTRING "${rest_built}" 0 ${end_built} a)
    string(SUBSTRING "${rest_other}" 0 ${end_other} b)
    if(a MATCHES "^==== ")
      set(kernel "${a}")
    endif()
    if(NOT a STREQUAL b OR end_built EQUAL -1 OR end_other EQUAL -1)
      break()
    endif()
    math(EXPR end_built "${end_built} + 1")
    math(EXPR end_other "${end_other} + 1")
    string(SUBSTRING "${rest_built}" ${end_built} -1 rest_built)
    string(SUBSTRING "${rest_other}" ${end_other} -1 rest_other)
  endwhile()
  message(FATAL_ERROR
          "twins.compilers_agree: the kernels built with ${CXX_COMPILER_ID} and with ${other} give different IR, "
          "so they would not share compiled variants or disk-cache entries; first in ${kernel}\n"
          "  ${CXX_COMPILER_ID}: ${a}\n  ${other}: ${b}\n"
          "diff ${WORK_DIR}/built.txt ${WORK_DIR}/other.txt shows all of it")
endif()
string(REGEX MATCHALL "\n==== " kernels "\n${out_built}")
list(LENGTH kernels count)
message("twins.compilers_agree: ${count} kernels give the same traced and typed IR with both compilers")
