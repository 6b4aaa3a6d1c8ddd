#!/usr/bin/env bash
# Installs a pinned Node.js build from the npm registry (the `node-<os>-<arch>` packages carry the official
# binaries) into the cache directory, and prints the directory holding its `node`, to put first on PATH:
#   PATH="$(bash scripts/install-node.sh 24):$PATH" npm test
# Majors and versions are pinned in package.json ("config.nodeVersions"); a build present in the cache is reused.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major="${1:?usage: install-node.sh MAJOR (one of package.json config.nodeVersions)}"
version="$(node -p "(require('$here/package.json').config.nodeVersions || {})['$major'] || ''")"
if [[ -z "$version" ]]; then
  echo "[install-node] no pinned Node $major in package.json config.nodeVersions" >&2
  exit 2
fi
platform="$(node -p "process.platform + '-' + process.arch")"
cache="${DATAOPS_TEMPORAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dataops-temporal}"
dest="$cache/node-$version-$platform"
bin="$dest/node_modules/node-$platform/bin"
if [[ ! -x "$bin/node" ]]; then
  echo "[install-node] installing Node $version ($platform) from the npm registry into $dest" >&2
  mkdir -p "$dest"
  npm install --prefix "$dest" --no-save --no-audit --no-fund --no-package-lock "node-$platform@$version" >&2
fi
"$bin/node" --version >&2
echo "$bin"
