#!/usr/bin/env bash
# gcverify(1) and the shell completions are generated at build time from the
# binary's --help texts (cmake/gen_cli_docs.py). This checks that they say
# what the binary says: every command's --help appears verbatim in the page
# (read back from the roff source, and as nroff renders it when nroff is
# installed), and the bash completion offers the commands and each command's
# options. usage: cli_docs.sh GCVERIFY DOCDIR
set -euo pipefail
exe=$1 dir=$2
page=$dir/gcverify.1
fail() { echo "cli_docs: FAIL: $*" >&2; exit 1; }
[ -s "$page" ] || fail "no man page at $page"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the commands the binary lists
mapfile -t cmds < <("$exe" --help | awk '/^commands:/{f=1;next} f&&/^  [a-z]/{print $1;next} f{exit}')
[ ${#cmds[@]} -ge 10 ] || fail "only ${#cmds[@]} commands in gcverify --help"

# roff source of one verbatim block, un-escaped the way gen_cli_docs.py escapes
block() { # block N: the N-th .nf ... .fi block (0 = DESCRIPTION)
  awk -v want="$1" '/^\.nf$/{n++; if (n-1==want) {on=1; next}} /^\.fi$/{on=0} on' "$page" |
    sed -e 's/^\\&//' -e 's/\\e/\\/g'
}
"$exe" --help >"$tmp/general"
block 0 >"$tmp/b0"
diff -u "$tmp/general" "$tmp/b0" >/dev/null || fail "DESCRIPTION differs from 'gcverify --help'"
i=1
for c in "${cmds[@]}"; do
  grep -qx "\.SS $c" "$page" || fail "no section for '$c'"
  "$exe" "$c" --help >"$tmp/h"
  block $i >"$tmp/b"
  diff -u "$tmp/h" "$tmp/b" >/dev/null || { diff -u "$tmp/h" "$tmp/b" | head -20; fail "section '$c' differs from 'gcverify $c --help'"; }
  i=$((i + 1))
done
echo "cli_docs: man page holds --help of gcverify and its ${#cmds[@]} commands verbatim"

if command -v nroff >/dev/null 2>&1; then
  # as rendered: every non-blank help line, leading blanks dropped, is a line
  # of the rendered page (MANWIDTH wide enough that nothing wraps)
  nroff -Tascii -man -rLL=250n "$page" 2>/dev/null | col -bx 2>/dev/null | sed 's/^ *//' >"$tmp/rendered" ||
    nroff -Tascii -man -rLL=250n "$page" | sed -e 's/.\x08//g' -e 's/^ *//' >"$tmp/rendered"
  for c in "${cmds[@]}"; do
    "$exe" "$c" --help | sed 's/^ *//' | grep -v '^$' | while IFS= read -r line; do
      grep -qxF -- "$line" "$tmp/rendered" || fail "rendered page lacks '$line' of '$c --help'"
    done
  done
  echo "cli_docs: nroff renders every help line unchanged"
fi

# bash completion: commands, then the options of the command being completed
# shellcheck disable=SC1091
source "$dir/gcverify.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _gcverify; echo "${COMPREPLY[*]}"; }
[ "$(complete_words gcverify swe)" = "sweep" ] || fail "bash: 'gcverify swe' does not complete to sweep"
got=$(complete_words gcverify sweep --lev)
[ "$got" = "--levels --level-memory-limit" ] || fail "bash: 'sweep --lev' gave '$got'"
got=$(complete_words gcverify help dump)
[ "$got" = "dump-texture" ] || fail "bash: 'help dump' gave '$got'"
for c in "${cmds[@]}"; do
  for o in $("$exe" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    case " $(complete_words gcverify "$c" "$o") " in
      *" $o "*) ;;
      *) fail "bash: '$c $o' is not offered" ;;
    esac
  done
done
echo "cli_docs: bash completion offers every command and every option each --help names"
if command -v zsh >/dev/null 2>&1; then
  zsh -n "$dir/_gcverify" || fail "zsh completion does not parse"
  echo "cli_docs: zsh completion parses"
fi
