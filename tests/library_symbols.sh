#!/usr/bin/env bash
# Symbol hygiene of libgcformats.so (docs/library.md): every symbol the shared
# library defines for others starts with gc_ (the version script
# decoders/gcformats.map), the public entry points are there, and its soname
# carries the version. Usage: library_symbols.sh path/to/libgcformats.so.X.Y.Z
set -euo pipefail
lib=$1
exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}')
[ -n "$exported" ] || { echo "library_symbols: $lib exports nothing"; exit 1; }
bad=$(printf '%s\n' "$exported" | grep -v '^gc_' || true)
if [ -n "$bad" ]; then
  echo "library_symbols: $lib exports symbols without the gc_ prefix:"; printf '  %s\n' $bad; exit 1
fi
for s in gc_level_init gc_level_decode gc_level_tables gc_level_free gc_table_registry \
         gc_status_name gc_lz_decompress gc_formats_version; do
  # a here-string, not a pipe: grep -q exits at its first match, and under
  # pipefail a printf still writing the rest (the list is over one 4 KiB
  # write) dies of SIGPIPE and fails the test at random
  grep -qx "$s" <<<"$exported" || { echo "library_symbols: $lib lacks $s"; exit 1; }
done
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
case "$soname" in
  libgcformats.so.[0-9]*) ;;
  *) echo "library_symbols: soname '$soname' is not versioned"; exit 1 ;;
esac
# (a sanitizer build also needs its runtime: not a dependency of the library)
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v 'san\.so' | sort | tr '\n' ' ')
case "$needed" in
  "libc.so.6 libm.so.6 ") ;;
  *) echo "library_symbols: $lib needs '$needed', the rule is libc and libm only"; exit 1 ;;
esac
echo "library_symbols: $(printf '%s\n' "$exported" | wc -l) symbols, all gc_*; soname $soname; needs $needed"
