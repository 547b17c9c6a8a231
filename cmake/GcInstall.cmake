# `cmake --install BUILD --prefix P` (issue 14):
#   P/bin/gcverify
#   P/share/gcverify/invariants/*.yaml          the default invariants
#   P/share/gcverify/golden/*.yaml, LEDGER.md   the synthetic corpus's goldens
#   P/lib/libgcformats.so.X.Y (+ .so link), P/lib/libgcformats.a
#   P/include/gcformats/*.h                     the public decoder headers
#   P/lib/pkgconfig/gcformats.pc                pkg-config
#   P/lib/cmake/gcformats/                      find_package(gcformats)
#   P/share/man/man1/gcverify.1                 the man page, made from --help
#   P/share/bash-completion/completions/gcverify, P/share/zsh/site-functions/_gcverify
# The installed gcverify finds its data as <exe>/../share/gcverify
# (harness/util/gc_paths.h); GCVERIFY_DATA_DIR overrides it.
include(CMakePackageConfigHelpers)

# A build-tree binary finds its checkout through this file (never compiled in).
file(WRITE ${CMAKE_BINARY_DIR}/gcverify-source-dir "${CMAKE_SOURCE_DIR}\n")

install(TARGETS gcverify RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# gcverify(1) and the completions are generated from the built binary's own
# --help texts (cmake/gen_cli_docs.py), so they cannot drift from it;
# tests/cli_docs.sh compares them.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(GC_CLI_DOCS ${CMAKE_BINARY_DIR}/cli-docs)
add_custom_command(
  OUTPUT ${GC_CLI_DOCS}/gcverify.1 ${GC_CLI_DOCS}/gcverify.bash ${GC_CLI_DOCS}/_gcverify
  COMMAND ${CMAKE_COMMAND} -E make_directory ${GC_CLI_DOCS}
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cmake/gen_cli_docs.py $<TARGET_FILE:gcverify>
          ${GC_CLI_DOCS} ${PROJECT_VERSION}
  DEPENDS gcverify ${CMAKE_SOURCE_DIR}/cmake/gen_cli_docs.py
  COMMENT "gcverify(1) and shell completions from --help"
  VERBATIM)
add_custom_target(gcverify_cli_docs ALL DEPENDS ${GC_CLI_DOCS}/gcverify.1)
install(FILES ${GC_CLI_DOCS}/gcverify.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${GC_CLI_DOCS}/gcverify.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME gcverify)
install(FILES ${GC_CLI_DOCS}/_gcverify DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/invariants/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gcverify/invariants
        FILES_MATCHING PATTERN "*.yaml")
file(GLOB GC_GOLDEN_FILES ${CMAKE_SOURCE_DIR}/golden/*.yaml)
install(FILES ${GC_GOLDEN_FILES} ${CMAKE_SOURCE_DIR}/golden/LEDGER.md
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gcverify/golden)

install(TARGETS gcformats gcformats_static EXPORT gcformatsTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${GC_FORMATS_PUBLIC_HEADERS}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gcformats)

# pkg-config: the shared library by default; `pkg-config --static` adds libm
# for linking libgcformats.a.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(FATAL_ERROR "gcformats.pc is relocatable: CMAKE_INSTALL_LIBDIR and INCLUDEDIR must be relative")
endif()
file(RELATIVE_PATH GC_PC_UP /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" GC_PC_UP "${GC_PC_UP}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/gcformats.pc.in ${CMAKE_BINARY_DIR}/gcformats.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/gcformats.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# find_package(gcformats): gcformats::gcformats (shared) and
# gcformats::gcformats_static.
set(GC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/gcformats)
install(EXPORT gcformatsTargets NAMESPACE gcformats:: DESTINATION ${GC_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/gcformatsConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/gcformatsConfig.cmake
                              INSTALL_DESTINATION ${GC_CMAKE_DIR})
# Same rule as the soname: before 1.0 a minor version is a new ABI.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(GC_COMPAT SameMinorVersion)
else()
  set(GC_COMPAT SameMajorVersion)
endif()
write_basic_package_version_file(${CMAKE_BINARY_DIR}/gcformatsConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY ${GC_COMPAT})
install(FILES ${CMAKE_BINARY_DIR}/gcformatsConfig.cmake
              ${CMAKE_BINARY_DIR}/gcformatsConfigVersion.cmake
        DESTINATION ${GC_CMAKE_DIR})
