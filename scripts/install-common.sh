# Sourced by the install scripts: the cache directory, a progress line, and what to do when a peer cannot be installed.
# Each script sets `tag` (its name in progress lines) before sourcing this file.

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${DATAOPS_TEMPORAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dataops-temporal}"

# The test command (scripts/prepare-tests.mjs) passes DATAOPS_INSTALL_STAMP, a file, and DATAOPS_INSTALL_KEY, the hash of
# this script's inputs: a run that ends well writes the key there, and the next test run skips the script while its
# inputs are the same. A run that skipped what it installs (`skipped=1`) writes nothing, so it is tried again.
skipped=""
write_stamp() {
  if [[ $? == 0 && -z "$skipped" && -n "${DATAOPS_INSTALL_STAMP:-}" ]]; then
    printf '%s\n' "${DATAOPS_INSTALL_KEY:-}" >"$DATAOPS_INSTALL_STAMP"
  fi
}
trap write_stamp EXIT

say() { printf '[%s] %s\n' "$tag" "$*" >&2; }

# Called when what the script installs cannot be installed here, with the reason. Outside CI the tests that need it
# are skipped and say why, so the script exits 0. Under CI=true nothing may be skipped: it exits 1, naming the reason.
unavailable() {
  if [[ "${CI:-}" == "true" ]]; then
    say "FAILED: $1"
    say "CI=true: a peer the tests need cannot be missing (a skipped peer test is not a pass)."
    exit 1
  fi
  say "$1"
  say "Not installed: the tests that need it will be skipped and say so."
  skipped=1
  exit 0
}

# Succeeds when "$1" is a Python >= 3.11.
python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; }

# "Python 3.9.2", or "missing" when there is no such command.
python_version() {
  if command -v "$1" >/dev/null 2>&1; then "$1" --version 2>&1; else echo missing; fi
}

# A failed install (not a missing prerequisite): always an error, in CI or not.
fail() {
  say "FAILED: $1"
  exit 1
}

# Installs a Python virtual environment from a requirements file into "$cache/$1-<hash of the file>", reused while the
# file is the same (a changed pin makes a new one), and writes its path to "$cache/$1.path". "$2": the requirements
# file; "$3": what needs it, for the message when there is no Python >= 3.11 (DATAOPS_PYTHON, default python3).
install_venv() {
  local name="$1" requirements="$2" what="$3"
  local hash dest python start
  hash="$(sha256sum "$requirements" | cut -c1-12)"
  dest="$cache/$name-$hash"
  python="${DATAOPS_PYTHON:-python3}"
  mkdir -p "$cache"
  if [[ -f "$dest/.complete" ]]; then
    say "present: $dest"
  else
    if ! python_ok "$python"; then
      rm -f "$cache/$name.path"
      unavailable "$what needs Python >= 3.11 ($python is $(python_version "$python")); set DATAOPS_PYTHON."
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
  printf '%s\n' "$dest" > "$cache/$name.path"
}
