#!/usr/bin/env bash
# Installs what the Python example (examples/python/) needs: a virtual environment in the cache directory with the
# pinned requirements (the Temporal Python SDK, pydantic, datamodel-code-generator), from PyPI. Reused when present:
# the environment's name carries a hash of requirements.txt, so a changed pin makes a new one.
#
# Overrides:
#   DATAOPS_PYTHON               the Python (>= 3.11) to build it with (default: python3)
#   DATAOPS_TEMPORAL_CACHE_DIR   cache directory, shared with the other install scripts (default: ~/.cache/dataops-temporal)
# Prints nothing but progress on stderr; the environment's path is in "$cache/python-example.path".
set -euo pipefail

tag=install-python-example
source "$(dirname "${BASH_SOURCE[0]}")/install-common.sh"
requirements="$here/examples/python/requirements.txt"
hash="$(sha256sum "$requirements" | cut -c1-12)"
dest="$cache/python-example-$hash"
python="${DATAOPS_PYTHON:-python3}"

mkdir -p "$cache"
if [[ -f "$dest/.complete" ]]; then
  say "present: $dest"
else
  if ! python_ok "$python"; then
    rm -f "$cache/python-example.path"
    unavailable "the Python example needs Python >= 3.11 ($python is $(python_version "$python")); set DATAOPS_PYTHON."
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
printf '%s\n' "$dest" > "$cache/python-example.path"
