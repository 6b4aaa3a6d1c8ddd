#!/usr/bin/env bash
# Installs the test peer of the quality-job API: DataKitchen TestGen, the reference implementation, from PyPI.
#   - a pinned `dataops-testgen[standalone]` (embedded PostgreSQL) in a virtual environment in the cache directory;
#   - a home directory set up without prompts (`testgen standalone-setup`) with the demo project (`testgen quick-start`),
#     kept as a template that each test run copies, so runs never see each other's jobs.
# Reused when present. The version is pinned in package.json ("config.testgen").
# TestGen's own outbound calls (analytics, a release check) are sent to a closed local port, so they fail at once
# where there is no internet instead of hanging.
#
# Overrides:
#   DATAOPS_TESTGEN_URL          a TestGen you already run: nothing is installed (the peer tests use it)
#   DATAOPS_SKIP_PEER=1          install nothing; the peer tests are skipped and say so (refused under CI=true)
#   DATAOPS_TESTGEN_PYTHON       the Python (>= 3.11) to build the virtual environment with (default: python3)
#   DATAOPS_TEMPORAL_CACHE_DIR   cache directory, shared with install-temporal.sh (default: ~/.cache/dataops-temporal)
set -euo pipefail

tag=install-testgen
source "$(dirname "${BASH_SOURCE[0]}")/install-common.sh"
version="$(node -p "require('$here/package.json').config.testgen")"
dest="$cache/testgen-$version"
python="${DATAOPS_TESTGEN_PYTHON:-python3}"
# The peer's admin login: a local, throw-away instance; test helpers read the same value from this file.
peer_user="admin"
peer_password="peer-Passw0rd"

if [[ "${DATAOPS_SKIP_PEER:-}" == "1" ]]; then
  unavailable "DATAOPS_SKIP_PEER=1: TestGen not installed."
fi
if [[ -n "${DATAOPS_TESTGEN_URL:-}" ]]; then
  say "DATAOPS_TESTGEN_URL is set ($DATAOPS_TESTGEN_URL): using that TestGen, installing nothing."
  exit 0
fi
if [[ -f "$dest/.complete" ]]; then
  say "TestGen $version present: $dest"
  exit 0
fi
if ! python_ok "$python"; then
  unavailable "TestGen needs Python >= 3.11 ($python is $(python_version "$python")); set DATAOPS_TESTGEN_PYTHON to a newer Python, or DATAOPS_TESTGEN_URL to a running TestGen."
fi

# Outbound calls go to a closed port: refused at once, never a hang. Loopback stays direct.
export HTTP_PROXY="http://127.0.0.1:9" HTTPS_PROXY="http://127.0.0.1:9" http_proxy="http://127.0.0.1:9" https_proxy="http://127.0.0.1:9"
export NO_PROXY="127.0.0.1,localhost,::1" no_proxy="127.0.0.1,localhost,::1"
export TG_ANALYTICS=no

rm -rf "$dest"
mkdir -p "$dest"
say "Installing dataops-testgen[standalone]==$version with $("$python" --version) into $dest/venv ..."
started=$(date +%s)
"$python" -m venv "$dest/venv"
# pip reaches the package index directly (the proxy above is only for TestGen's own calls).
env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy \
  "$dest/venv/bin/pip" install --quiet --disable-pip-version-check "dataops-testgen[standalone]==$version" ||
  fail "pip could not install dataops-testgen[standalone]==$version (its output is above)."
say "pip install took $(($(date +%s) - started)) s"

# TestGen writes a Streamlit credentials file under $HOME: give it a home of its own.
mkdir -p "$dest/user-home"
export HOME="$dest/user-home" TG_TESTGEN_HOME="$dest/template-home"
started=$(date +%s)
"$dest/venv/bin/testgen" standalone-setup --username "$peer_user" --password "$peer_password" >"$dest/setup.log" 2>&1 ||
  {
    tail -20 "$dest/setup.log" >&2
    exit 1
  }
"$dest/venv/bin/testgen" quick-start >"$dest/quick-start.log" 2>&1 ||
  {
    tail -20 "$dest/quick-start.log" >&2
    exit 1
  }
say "standalone-setup and quick-start took $(($(date +%s) - started)) s"
printf '{"username":"%s","password":"%s","version":"%s"}\n' "$peer_user" "$peer_password" "$version" >"$dest/peer.json"
touch "$dest/.complete"
say "TestGen $version ready: $dest (demo project DEFAULT)"
