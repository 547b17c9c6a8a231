# Per-target flags (never global CMAKE_C_FLAGS edits: they leak into checks).
set(GC_WARNINGS
  -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wpointer-arith -Wundef -Wvla -Wformat=2 -Wwrite-strings
  -Wimplicit-fallthrough -Wno-unused-parameter
  # Diagnostics are bounded buffers filled with snprintf, and truncating a
  # long path in a message is the intended behaviour; gcc's -O0 heuristic
  # flags every such call. (GNU only: clang has no such option.)
  $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)

# Everything that feeds a hash or the synthetic corpus must be bit-identical
# under gcc and clang at any -O level: no contraction of a*b+c into FMA.
set(GC_DETERMINISM -ffp-contract=off -fno-fast-math)

# Fuzz builds: every library gets coverage instrumentation (fuzzer-no-link),
# so libFuzzer sees the decoders' branches, not only the target's.
if(GC_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(GC_SANITIZE)
  set(GC_SAN_FLAGS -fsanitize=${GC_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${GC_SAN_FLAGS})
  add_link_options(${GC_SAN_FLAGS})
endif()

function(gc_target_flags tgt)
  target_compile_options(${tgt} PRIVATE ${GC_WARNINGS} ${GC_DETERMINISM})
  if(GC_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
  if(GC_FAULTS)
    target_compile_definitions(${tgt} PUBLIC GC_FAULTS=1)
  endif()
endfunction()
