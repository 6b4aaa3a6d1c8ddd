#!/usr/bin/env bash
# Installs the S3-compatible object store the claim-check tests run against: moto's standalone server
# (`moto[server]`, from PyPI), pinned in package.json ("config.objectStore"), in a virtual environment in the cache
# directory. Reused when present. moto speaks the S3 REST API over real sockets, including bucket lifecycle rules.
#
# Overrides:
#   DATAOPS_S3_TEST_ENDPOINT     an S3-compatible server you already run (MinIO, Ceph, S3 itself): nothing is installed
#   DATAOPS_SKIP_OBJECT_STORE=1  install nothing; the object-store tests are skipped and say so (refused under CI=true)
#   DATAOPS_PYTHON               the Python (>= 3.11) to build the environment with (default: python3)
#   DATAOPS_TEMPORAL_CACHE_DIR   cache directory, shared with the other install scripts (default: ~/.cache/dataops-temporal)
set -euo pipefail

tag=install-object-store
source "$(dirname "${BASH_SOURCE[0]}")/install-common.sh"
version="$(node -p "require('$here/package.json').config.objectStore")"
dest="$cache/moto-$version"
python="${DATAOPS_PYTHON:-python3}"

if [[ "${DATAOPS_SKIP_OBJECT_STORE:-}" == "1" ]]; then
  unavailable "DATAOPS_SKIP_OBJECT_STORE=1: nothing installed."
fi
if [[ -n "${DATAOPS_S3_TEST_ENDPOINT:-}" ]]; then
  say "DATAOPS_S3_TEST_ENDPOINT is set ($DATAOPS_S3_TEST_ENDPOINT): using that server, installing nothing."
  exit 0
fi
if [[ -f "$dest/.complete" ]]; then
  say "moto $version present: $dest"
  exit 0
fi
if ! python_ok "$python"; then
  unavailable "moto needs Python >= 3.11 ($python is $(python_version "$python")); set DATAOPS_PYTHON."
fi
rm -rf "$dest"
say "installing moto[server]==$version into $dest ..."
start=$(date +%s)
"$python" -m venv "$dest"
"$dest/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$version" ||
  fail "pip could not install moto[server]==$version (its output is above)."
"$dest/bin/moto_server" --help >/dev/null
touch "$dest/.complete"
say "installed in $(( $(date +%s) - start )) s"
