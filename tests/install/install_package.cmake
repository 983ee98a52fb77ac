# ctest install_package: installs the Tack build into a fresh prefix, then
# builds consumer/ against it with find_package(Tack) and runs it.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")

set(install_args --install "${TACK_BINARY_DIR}" --prefix "${prefix}")
if(CONFIG)
  list(APPEND install_args --config "${CONFIG}")
endif()
tack_run("${CMAKE_COMMAND}" ${install_args})

tack_build_and_run("${TESTS_DIR}/consumer" "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${prefix}")

# The package must have come from the fresh prefix, not from somewhere else.
file(STRINGS "${WORK_DIR}/build/CMakeCache.txt" tack_dir REGEX "^Tack_DIR:")
string(REGEX REPLACE "^Tack_DIR:[A-Z]+=" "" tack_dir "${tack_dir}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${tack_dir}" real_tack_dir)
string(FIND "${real_tack_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "find_package(Tack) used ${tack_dir}, not the package installed in ${prefix}")
endif()
message(STATUS "install_package: OK (Tack_DIR=${tack_dir})")
