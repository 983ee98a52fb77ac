# The libFuzzer target tack_libfuzzer (README.md here). Only scripts/libfuzzer.sh
# builds it: it configures a clang build with coverage and the sanitizers and
# includes this file after project(Tack) (-DCMAKE_PROJECT_Tack_INCLUDE=...), so
# the normal build's CMake files need no hook (and gcc has no libFuzzer). The
# target is defined at the end of the top-level CMakeLists.txt (a deferred call),
# once Tack::tack exists.
function(tack_add_libfuzzer)
  set(dir ${PROJECT_SOURCE_DIR}/tests/fuzz/libfuzzer)
  add_executable(tack_libfuzzer ${dir}/frontend_fuzzer.cpp)
  set_target_properties(tack_libfuzzer PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/libfuzzer)
  # Internal headers: the harness verifies the traced IR itself (src/ir).
  target_include_directories(tack_libfuzzer PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(tack_libfuzzer PRIVATE Tack::tack)
  # The library has -fsanitize=fuzzer-no-link (coverage only); the target alone
  # links libFuzzer's main().
  target_compile_options(tack_libfuzzer PRIVATE -fsanitize=fuzzer)
  target_link_options(tack_libfuzzer PRIVATE -fsanitize=fuzzer)
endfunction()
cmake_language(DEFER CALL tack_add_libfuzzer)
