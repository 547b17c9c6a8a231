# Dependencies come from Debian packages; ci/deps.sh installs them. Each
# failure names the package to install.
find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: apt-get install pkg-config (or run: bash ci/deps.sh)")
endif()
pkg_check_modules(YAML IMPORTED_TARGET yaml-0.1)
if(NOT YAML_FOUND)
  message(FATAL_ERROR "libyaml not found: apt-get install libyaml-dev (or run: bash ci/deps.sh)")
endif()
find_package(OpenSSL 3)
if(NOT OPENSSL_FOUND)
  message(FATAL_ERROR "OpenSSL libcrypto not found: apt-get install libssl-dev (or run: bash ci/deps.sh)")
endif()
find_package(PNG)
if(NOT PNG_FOUND)
  message(FATAL_ERROR "libpng not found: apt-get install libpng-dev (or run: bash ci/deps.sh)")
endif()
# Disc images (--corpus F.iso, synth --iso): libcdio's ISO 9660 library. Chosen
# over libarchive because it gives each file's LBA (the table of contents is
# checked against it), reads sectors at random, and has the directory-record
# and volume-descriptor builders the image writer uses (README, "Disc images").
pkg_check_modules(ISO9660 IMPORTED_TARGET libiso9660)
if(NOT ISO9660_FOUND)
  message(FATAL_ERROR "libiso9660 not found: apt-get install libiso9660-dev (or run: bash ci/deps.sh)")
endif()
# JSON reading (diff, merge, report tests): jansson, a maintained library,
# instead of a parser of our own; the report writers stay ours (report_write.c).
pkg_check_modules(JANSSON IMPORTED_TARGET jansson)
if(NOT JANSSON_FOUND)
  message(FATAL_ERROR "jansson not found: apt-get install libjansson-dev (or run: bash ci/deps.sh)")
endif()
# The table fingerprints of the column digests (harness/golden/digest.c):
# xxHash's XXH3-128, a maintained library, fast enough that a table whose
# digests are unchanged costs one pass over its bytes (docs/performance.md).
pkg_check_modules(XXHASH IMPORTED_TARGET libxxhash)
if(NOT XXHASH_FOUND)
  message(FATAL_ERROR "libxxhash not found: apt-get install libxxhash-dev (or run: bash ci/deps.sh)")
endif()
# The history of sweeps (--history DB, gcverify history/last-good/bisect):
# SQLite gives one-file databases, transactions a killed run cannot tear, and
# a busy timeout for concurrent writers, with no server (docs/history.md).
pkg_check_modules(SQLITE3 IMPORTED_TARGET sqlite3)
if(NOT SQLITE3_FOUND)
  message(FATAL_ERROR "libsqlite3 not found: apt-get install libsqlite3-dev (or run: bash ci/deps.sh)")
endif()
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
if(GC_BUILD_TESTS)
  pkg_check_modules(CRITERION IMPORTED_TARGET criterion)
  if(NOT CRITERION_FOUND)
    message(FATAL_ERROR "Criterion not found: apt-get install libcriterion-dev (or run: bash ci/deps.sh)")
  endif()
endif()
