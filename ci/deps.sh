#!/usr/bin/env bash
# Installs, with apt-get, whatever gcverify needs that is missing. Idempotent
# and quiet when everything is there. Debian 12 packages only.
set -euo pipefail
pkgs=(build-essential make cmake pkg-config git libyaml-dev libssl-dev libcriterion-dev
      libpng-dev clang clang-format libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ci/deps.sh: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
