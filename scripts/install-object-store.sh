#!/usr/bin/env bash
# Installs the S3-compatible object store the claim-check tests run against: moto's standalone server
# (`moto[server]`, from PyPI), pinned in package.json ("config.objectStore"), in a virtual environment in the cache
# directory. Reused when present. moto speaks the S3 REST API over real sockets, including bucket lifecycle rules.
#
# Overrides:
#   DATAOPS_S3_TEST_ENDPOINT     an S3-compatible server you already run (MinIO, Ceph, S3 itself): nothing is installed
#   DATAOPS_SKIP_OBJECT_STORE=1  install nothing; the object-store tests are skipped and say so
#   DATAOPS_PYTHON               the Python (>= 3.11) to build the environment with (default: python3)
#   DATAOPS_TEMPORAL_CACHE_DIR   cache directory, shared with the other install scripts (default: ~/.cache/dataops-temporal)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$(node -p "require('$here/package.json').config.objectStore")"
cache="${DATAOPS_TEMPORAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dataops-temporal}"
dest="$cache/moto-$version"
python="${DATAOPS_PYTHON:-python3}"

say() { printf '[install-object-store] %s\n' "$*" >&2; }

if [[ "${DATAOPS_SKIP_OBJECT_STORE:-}" == "1" ]]; then
  say "DATAOPS_SKIP_OBJECT_STORE=1: nothing installed; the object-store tests will be skipped."
  exit 0
fi
if [[ -n "${DATAOPS_S3_TEST_ENDPOINT:-}" ]]; then
  say "DATAOPS_S3_TEST_ENDPOINT is set ($DATAOPS_S3_TEST_ENDPOINT): using that server, installing nothing."
  exit 0
fi
if [[ -f "$dest/.complete" ]]; then
  say "moto $version present: $dest"
  exit 0
fi
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  say "needs Python >= 3.11 ($python is $("$python" --version 2>&1 || echo missing)); set DATAOPS_PYTHON."
  say "Not installed: the object-store tests will be skipped and say so."
  exit 0
fi
rm -rf "$dest"
say "installing moto[server]==$version into $dest ..."
start=$(date +%s)
"$python" -m venv "$dest"
"$dest/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$version"
"$dest/bin/moto_server" --help >/dev/null
touch "$dest/.complete"
say "installed in $(( $(date +%s) - start )) s"
