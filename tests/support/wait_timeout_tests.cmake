# Included by ctest after the discovered gtest cases (tests/CMakeLists.txt): the
# tests whose kernel never ends get a small TIMEOUT rather than ctest's default.
# (ctest ignores properties of a test it does not know, e.g. before the first build.)
set_tests_properties(errors.WaitTimeout.EndlessOpenclKernelRaisesBackendErrorNamingIt
                     errors.WaitTimeout.MalformedTimeoutIsRefusedByName PROPERTIES TIMEOUT 90)
