# ctest add_subdirectory_package: builds subdir_consumer/, which adds Tack's
# source tree with add_subdirectory() and links Tack::tack, then runs it.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
tack_build_and_run("${TESTS_DIR}/subdir_consumer" "${WORK_DIR}/build" "-DTACK_CHECKOUT=${TACK_SOURCE_DIR}")

# As a subproject Tack must not build its own tests or examples.
foreach(unwanted tests examples)
  if(EXISTS "${WORK_DIR}/build/tack/${unwanted}")
    message(FATAL_ERROR "Tack built its ${unwanted} as a subproject (build/tack/${unwanted} exists)")
  endif()
endforeach()
message(STATUS "add_subdirectory_package: OK")
