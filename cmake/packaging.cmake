# A Debian package from the install rules of cmake/install.cmake: `cpack -G DEB` in the build
# directory (or `cmake --build BUILD --target package`). docs/operations.md.
set(CPACK_PACKAGE_NAME tiercache)
set(CPACK_PACKAGE_VENDOR "tiercache")
set(CPACK_PACKAGE_CONTACT "tiercache maintainers <tiercache@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "SSD cache in front of an HDD, served as a block device over NBD")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
# Shared-library dependencies (libaio1, liburing2, libxxhash0, libsystemd0, libblkid1, ...) from
# dpkg-shlibdeps on the installed binaries; nbd-client for tiercache-nbd@.service.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nbd-client")
# cpack packages what is built (the Makefile's `install` builds first) instead of building every
# target of the tree, tests included, first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
include(CPack)
