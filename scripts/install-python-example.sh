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
install_venv python-example "$here/examples/python/requirements.txt" "the Python example"
