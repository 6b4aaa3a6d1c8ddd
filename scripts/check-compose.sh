#!/usr/bin/env bash
# Validates docker-compose.yml with compose-go (the loader Docker Compose uses), since CI has no Docker engine.
# The checker is built once into the cache directory, keyed by its go.sum.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${DATAOPS_TEMPORAL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dataops-temporal}"
key="$(sha256sum "$here/tools/compose-check/go.sum" "$here/tools/compose-check/main.go" | sha256sum | cut -c1-16)"
bin="$cache/compose-check-$key"
if [[ ! -x "$bin" ]]; then
  mkdir -p "$cache"
  (cd "$here/tools/compose-check" && \
    GOSUMDB="${GOSUMDB:-sum.golang.org https://proxy.golang.org/sumdb/sum.golang.org}" GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
    go build -o "$bin.tmp" . && mv "$bin.tmp" "$bin")
fi
exec "$bin" "${1:-$here/docker-compose.yml}"
