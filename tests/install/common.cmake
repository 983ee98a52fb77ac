# Shared by the packaging checks (cmake -P scripts run by ctest): configure,
# build and run a small project with the toolchain of the Tack build under test.
# Inputs (-D): TACK_SOURCE_DIR TACK_BINARY_DIR TESTS_DIR WORK_DIR CONFIG GENERATOR
#              MAKE_PROGRAM CXX_COMPILER CXX_COMPILER_LAUNCHER CXX_FLAGS EXE_LINKER_FLAGS
cmake_minimum_required(VERSION 3.20)

foreach(required TACK_SOURCE_DIR TACK_BINARY_DIR TESTS_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${required} OR "${${required}}" STREQUAL "")
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: -D${required}=... is required")
  endif()
endforeach()

# Runs a command, echoing it first; a non-zero exit fails the test.
function(tack_run)
  string(JOIN " " shown ${ARGN})
  message(STATUS "+ ${shown}")
  execute_process(COMMAND ${ARGN} COMMAND_ERROR_IS_FATAL ANY)
endfunction()

# tack_build_and_run(<source dir> <build dir> [extra configure args...]):
# configures, builds and runs the project's `consumer` executable.
function(tack_build_and_run source_dir build_dir)
  set(args -S "${source_dir}" -B "${build_dir}" -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
           -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  if(MAKE_PROGRAM)
    list(APPEND args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  if(CXX_COMPILER_LAUNCHER)
    list(APPEND args "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_COMPILER_LAUNCHER}")
  endif()
  if(CXX_FLAGS)
    list(APPEND args "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
  endif()
  if(EXE_LINKER_FLAGS)
    list(APPEND args "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}")
  endif()
  if(CONFIG)
    list(APPEND args "-DCMAKE_BUILD_TYPE=${CONFIG}")
  endif()
  tack_run("${CMAKE_COMMAND}" ${args} ${ARGN})

  set(build_args --build "${build_dir}" --parallel 2)
  if(CONFIG)
    list(APPEND build_args --config "${CONFIG}")
  endif()
  tack_run("${CMAKE_COMMAND}" ${build_args})

  foreach(exe "${build_dir}/consumer" "${build_dir}/${CONFIG}/consumer" "${build_dir}/${CONFIG}/consumer.exe")
    if(EXISTS "${exe}" AND NOT IS_DIRECTORY "${exe}")
      tack_run("${exe}")
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "the consumer executable was not found under ${build_dir}")
endfunction()
