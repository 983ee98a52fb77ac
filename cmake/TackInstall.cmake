# Installs Tack as a CMake package: find_package(Tack) gives Tack::tack.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The compiler plugin (libtack_llvm) goes beside libtack, where libtack looks for it.
set(TACK_INSTALLED_TARGETS tack)
if(TARGET tack_llvm)
  list(APPEND TACK_INSTALLED_TARGETS tack_llvm)
endif()
install(TARGETS ${TACK_INSTALLED_TARGETS} EXPORT TackTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tack DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT TackTargets NAMESPACE Tack:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tack)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TackConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/TackConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tack)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TackConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TackConfig.cmake ${PROJECT_BINARY_DIR}/TackConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tack)

# The build tree is a package too (find_package(Tack PATHS <build>)), so the
# Python package's build can link the library a test build just made.
export(EXPORT TackTargets NAMESPACE Tack:: FILE ${PROJECT_BINARY_DIR}/TackTargets.cmake)
