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

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requirements="$here/examples/python/requirements.txt"
cache="${DATAOPS_TEMPORAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dataops-temporal}"
hash="$(sha256sum "$requirements" | cut -c1-12)"
dest="$cache/python-example-$hash"
python="${DATAOPS_PYTHON:-python3}"

say() { printf '[install-python-example] %s\n' "$*" >&2; }

mkdir -p "$cache"
if [[ -f "$dest/.complete" ]]; then
  say "present: $dest"
else
  if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
    say "needs Python >= 3.11 ($python is $("$python" --version 2>&1 || echo missing)); set DATAOPS_PYTHON."
    say "Not installed: the Python example's tests will be skipped and say so."
    rm -f "$cache/python-example.path"
    exit 0
  fi
  rm -rf "$dest"
  say "installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $dest ..."
  start=$(date +%s)
  "$python" -m venv "$dest"
  "$dest/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  touch "$dest/.complete"
  say "installed in $(( $(date +%s) - start )) s"
fi
printf '%s\n' "$dest" > "$cache/python-example.path"
