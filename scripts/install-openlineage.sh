#!/usr/bin/env bash
# Installs what the lineage tests check our OpenLineage events with: a virtual environment in the cache directory with
# the pinned OpenLineage Python client and jsonschema (test/lineage/requirements.txt), from PyPI. Reused when present:
# the environment's name carries a hash of the requirements, so a changed pin makes a new one.
#
# Overrides:
#   DATAOPS_PYTHON               the Python (>= 3.11) to build it with (default: python3)
#   DATAOPS_TEMPORAL_CACHE_DIR   cache directory, shared with the other install scripts (default: ~/.cache/dataops-temporal)
# Prints nothing but progress on stderr; the environment's path is in "$cache/openlineage.path".
set -euo pipefail

tag=install-openlineage
source "$(dirname "${BASH_SOURCE[0]}")/install-common.sh"
requirements="$here/test/lineage/requirements.txt"
hash="$(sha256sum "$requirements" | cut -c1-12)"
dest="$cache/openlineage-$hash"
python="${DATAOPS_PYTHON:-python3}"

mkdir -p "$cache"
if [[ -f "$dest/.complete" ]]; then
  say "present: $dest"
else
  if ! python_ok "$python"; then
    rm -f "$cache/openlineage.path"
    unavailable "the lineage checks need Python >= 3.11 ($python is $(python_version "$python")); set DATAOPS_PYTHON."
  fi
  rm -rf "$dest"
  say "installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $dest ..."
  start=$(date +%s)
  "$python" -m venv "$dest"
  "$dest/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" ||
    fail "pip could not install $requirements (its output is above)."
  touch "$dest/.complete"
  say "installed in $(( $(date +%s) - start )) s"
fi
printf '%s\n' "$dest" > "$cache/openlineage.path"
