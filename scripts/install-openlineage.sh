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
install_venv openlineage "$here/test/lineage/requirements.txt" "the lineage checks"
