# Per-target flags (never global CMAKE_C_FLAGS edits: they leak into checks).
set(GC_WARNINGS
  -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
  -Wpointer-arith -Wundef -Wvla -Wformat=2 -Wwrite-strings
  -Wimplicit-fallthrough -Wno-unused-parameter)

# Everything that feeds a hash or the synthetic corpus must be bit-identical
# under gcc and clang at any -O level: no contraction of a*b+c into FMA.
set(GC_DETERMINISM -ffp-contract=off -fno-fast-math)

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
