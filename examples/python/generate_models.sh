#!/usr/bin/env bash
# Regenerates dataops_models/ (pydantic v2 models) from the contract's JSON Schemas. Committed; a test fails when
# they are out of date. Usage: examples/python/generate_models.sh [OUTPUT_DIR] (default: dataops_models beside it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/dataops_models}"
codegen="${DATAMODEL_CODEGEN:-datamodel-codegen}"
"$codegen" --input "$here/../../contract/json-schema" --input-file-type jsonschema --output "$out" \
  --output-model-type pydantic_v2.BaseModel --target-python-version 3.11 --disable-timestamp --formatters builtin
