# Install rules, used by `cmake --install BUILD [--prefix P]`, `make install` and the .deb of
# cmake/packaging.cmake: the binaries, the man pages (built from docs/*.md with pandoc), the
# systemd units of systemd/ (their paths point into the install prefix) and the operations guide.
include(GNUInstallDirs)

option(TIERCACHE_MAN_PAGES "Build tiercache.1 and tiercached.8 from docs/*.md with pandoc" ON)
set(TIERCACHE_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
  "Where the systemd units are installed, relative to the install prefix")
find_program(TIERCACHE_NBD_CLIENT nbd-client PATHS /usr/sbin /sbin NO_DEFAULT_PATH)
if(NOT TIERCACHE_NBD_CLIENT)
  set(TIERCACHE_NBD_CLIENT /usr/sbin/nbd-client)  # Debian's nbd-client, installed or not
endif()

install(TARGETS tiercache tiercache-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tiercached RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})

if(TIERCACHE_MAN_PAGES)
  find_program(PANDOC_EXECUTABLE pandoc)
  if(NOT PANDOC_EXECUTABLE)
    message(FATAL_ERROR "pandoc not found: `make deps` installs it (or -DTIERCACHE_MAN_PAGES=OFF)")
  endif()
  set(man_outputs)
  foreach(page tiercache.1 tiercached.8)
    string(REGEX MATCH "[0-9]$" section ${page})
    set(source ${CMAKE_SOURCE_DIR}/docs/${page}.md)
    set(output ${CMAKE_BINARY_DIR}/man/${page})
    # The markdown's YAML block gives title, section and header; its "##" sections become .SH.
    # Installed gzipped, as Debian policy wants (-n: no name or time stamp, reproducible); the
    # plain page stays in the build tree for `man -l`.
    add_custom_command(OUTPUT ${output} ${output}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${PANDOC_EXECUTABLE} -s -t man --shift-heading-level-by=-1
              -M "footer=tiercache ${PROJECT_VERSION}" -o ${output} ${source}
      COMMAND gzip -9nkf ${output}
      DEPENDS ${source}
      COMMENT "Generating man page ${page}")
    list(APPEND man_outputs ${output} ${output}.gz)
    install(FILES ${output}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
  endforeach()
  add_custom_target(man-pages ALL DEPENDS ${man_outputs})
endif()

# The units are configured at install time, not at configure time, so that
# `cmake --install --prefix P` writes ExecStart=P/sbin/tiercached.
foreach(unit tiercached@.service tiercache-nbd@.service)
  set(staged ${CMAKE_BINARY_DIR}/systemd/${unit})
  install(CODE "
    if(IS_ABSOLUTE \"${CMAKE_INSTALL_SBINDIR}\")
      set(SBINDIR \"${CMAKE_INSTALL_SBINDIR}\")
    else()
      set(SBINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SBINDIR}\")
    endif()
    set(NBD_CLIENT \"${TIERCACHE_NBD_CLIENT}\")
    configure_file(\"${CMAKE_SOURCE_DIR}/systemd/${unit}.in\" \"${staged}\" @ONLY)
  ")
  install(FILES ${staged} DESTINATION ${TIERCACHE_SYSTEMD_UNIT_DIR})
endforeach()

install(FILES ${CMAKE_SOURCE_DIR}/docs/operations.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
