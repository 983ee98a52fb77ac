# Included by ctest after the discovered gtest cases (tests/CMakeLists.txt): the
# tests whose kernel never ends get a small TIMEOUT rather than ctest's default.
# (ctest ignores properties of a test it does not know, e.g. before the first build.)
set_tests_properties(errors.WaitTimeout.EndlessOpenclKernelRaisesBackendErrorNamingIt
                     errors.WaitTimeout.MalformedTimeoutIsRefusedByName PROPERTIES TIMEOUT 90)
# Kernels that once hung (conformance/fuzz_regressions.cpp): their waits are bounded on the queued
# backends; interp and cpu run on the calling thread, so this bounds those.
foreach(backend interp cpu opencl cuda hip level_zero metal)
  foreach(test ConditionalBarrierThenLocalIdBoundedLoopWithAGatheredAtomicOrFinishes
               ConditionalBarrierThenLocalIdBoundedLoopWithAGatheredLoadFinishes)
    # gtest_discover_tests names a parameterized case with its parameter appended.
    set_tests_properties("conformance.Backends/FuzzRegressions.${test}/${backend}  # GetParam() = \"${backend}\""
                         PROPERTIES TIMEOUT 300)
  endforeach()
endforeach()
