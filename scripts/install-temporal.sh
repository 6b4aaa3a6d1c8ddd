#!/usr/bin/env bash
# Installs the two Temporal servers the tests and the demo run on, and a Temporal CLI, from package registries only:
#   - the Temporal CLI's dev server (`temporal server start-dev`), built from the Go module proxy (tools/devserver);
#   - the Java time-skipping test server, resolved from Maven Central with its runtime classpath;
#   - the whole Temporal CLI of the newest version the proxy builds ("config.temporalCallerCli"), which a test uses as an
#     outside caller (`temporal workflow start`), as docs/contract.md shows.
# All three land in a cache directory outside the repository, reused when present, rebuilt when missing.
# `install-temporal.sh --dev-server` installs the dev server alone: what `npm start` needs.
# Versions are pinned in package.json ("config.temporalCli", "config.temporalTestServer", "config.temporalCallerCli").
#
# Overrides:
#   TEMPORAL_CLI_PATH, TEMPORAL_TEST_SERVER_PATH   use these executables, install nothing for them
#   TEMPORAL_CALLER_CLI_PATH                       the whole Temporal CLI the caller test runs
#   DATAOPS_TEMPORAL_CACHE_DIR                     cache directory (default: $XDG_CACHE_HOME or ~/.cache, /dataops-temporal)
#   DATAOPS_TEMPORAL_SKIP_INSTALL=1                install nothing: the SDK downloads its servers itself
# Without Go or Java, the matching server is skipped with a note, and the SDK's own download is used; under CI=true
# that is a failure instead.
set -euo pipefail

tag=install-temporal
source "$(dirname "${BASH_SOURCE[0]}")/install-common.sh"
cli_version="$(node -p "require('$here/package.json').config.temporalCli")"
caller_version="$(node -p "require('$here/package.json').config.temporalCallerCli")"
ts_version="$(node -p "require('$here/package.json').config.temporalTestServer")"

if [[ "${DATAOPS_TEMPORAL_SKIP_INSTALL:-}" == "1" ]]; then
  say "DATAOPS_TEMPORAL_SKIP_INSTALL=1: nothing installed; the SDK downloads its servers when a test needs them."
  skipped=1
  exit 0
fi
mkdir -p "$cache"

# Whether Go is here to build "$1" (what, for the messages). Without it, outside CI, the caller falls back ("$2").
have_go() {
  command -v go >/dev/null 2>&1 && return 0
  [[ "${CI:-}" == "true" ]] && fail "Go not found: $1 cannot be built (CI=true: no fallback)."
  say "Go not found: skipping $1; $2."
  skipped=1
  return 1
}

# The checksum database, reached through the module proxy when sum.golang.org itself is not reachable: this is the
# same database, verified with the same key, so go.sum verification is never skipped.
sumdb="${GOSUMDB:-sum.golang.org https://proxy.golang.org/sumdb/sum.golang.org}"
if [[ "${GOPROXY:-}" == "off" ]]; then sumdb="${GOSUMDB:-sum.golang.org}"; fi

install_cli() {
  local dest="$cache/temporal-cli-$cli_version"
  if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
    say "TEMPORAL_CLI_PATH is set ($TEMPORAL_CLI_PATH): not building the CLI."
    return
  fi
  # Rebuilt when tools/devserver/main.go changes.
  local source_sum
  source_sum="$(sha256sum "$here/tools/devserver/main.go" | cut -c1-16)"
  if [[ -x "$dest/temporal" && "$(cat "$dest/.source" 2>/dev/null)" == "$source_sum" ]]; then
    say "Temporal CLI $cli_version dev server present: $dest/temporal"
    return
  fi
  have_go "the Temporal CLI's dev server" "the SDK will download the dev server instead" || return 0
  say "Building the dev server of Temporal CLI $cli_version with $(go version) ..."
  local tmp
  tmp="$(mktemp -d "$cache/.cli-build.XXXXXX")"
  # The CLI's module (verified against the checksum database), built as the main module with tools/devserver/main.go
  # as one more command: its own command tree needs the nested module cliext, which the module proxy does not serve
  # (a module's zip leaves nested modules out), and the dev server does not use it, so cliext is an empty stand-in.
  local module
  module="$(cd "$tmp" && GOSUMDB="$sumdb" go mod download -json "github.com/temporalio/cli@v$cli_version" |
    node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const m=JSON.parse(s);if(m.Error){console.error(m.Error);process.exit(1)}console.log(m.Dir)})')"
  mkdir -p "$tmp/src" && cp -r "$module/." "$tmp/src"
  chmod -R u+w "$tmp/src"
  mkdir -p "$tmp/src/cliext" "$tmp/src/cmd/dataops-devserver"
  printf 'module github.com/temporalio/cli/cliext\n\ngo 1.26\n' >"$tmp/src/cliext/go.mod"
  cp "$here/tools/devserver/main.go" "$tmp/src/cmd/dataops-devserver/main.go"
  (cd "$tmp/src" && GOSUMDB="$sumdb" GOFLAGS="${GOFLAGS:-} -buildvcs=false" CGO_ENABLED=0 \
    go build -trimpath -ldflags "-s -w -X main.version=$cli_version" -o "$tmp/temporal" ./cmd/dataops-devserver)
  mkdir -p "$dest"
  mv "$tmp/temporal" "$dest/temporal.new" && mv "$dest/temporal.new" "$dest/temporal"
  printf '%s\n' "$source_sum" >"$dest/.source"
  rm -rf "$tmp"
  "$dest/temporal" --version >&2
}

install_test_server() {
  local dest="$cache/temporal-test-server-$ts_version"
  if [[ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]]; then
    say "TEMPORAL_TEST_SERVER_PATH is set ($TEMPORAL_TEST_SERVER_PATH): not resolving the test server."
    return
  fi
  if [[ -x "$dest/temporal-test-server" && -f "$dest/.complete" ]]; then
    say "Temporal test server $ts_version present: $dest/temporal-test-server"
    return
  fi
  if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    [[ "${CI:-}" == "true" ]] && fail "Java or Maven not found: the test server cannot be resolved (CI=true: no SDK download)."
    say "Java or Maven not found: skipping the test server; the SDK will download it instead."
    skipped=1
    return
  fi
  say "Resolving io.temporal:temporal-test-server:$ts_version and its runtime classpath from Maven Central ..."
  rm -rf "$dest" && mkdir -p "$dest"
  cat >"$dest/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.dataops-temporal</groupId>
  <artifactId>temporal-test-server-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$ts_version</version>
    </dependency>
  </dependencies>
</project>
POM
  mvn -q -B -f "$dest/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dest/lib"
  # The SDK spawns this launcher with the port as its first argument and waits only a few seconds for it
  # to accept connections, so the JVM is tuned for start-up: C1 only, serial GC, and a class-data archive.
  cat >"$dest/temporal-test-server" <<'LAUNCHER'
#!/bin/sh
dir="$(cd "$(dirname "$0")" && pwd)"
cds=""
if [ -f "$dir/classes.jsa" ]; then cds="-XX:SharedArchiveFile=$dir/classes.jsa -Xlog:cds=off -Xlog:cds+dynamic=off"; fi
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k $cds ${TEMPORAL_TEST_SERVER_JAVA_OPTS:-} \
  -cp "$dir/lib/*" io.temporal.testserver.TestServer "$@"
LAUNCHER
  chmod +x "$dest/temporal-test-server"
  build_class_archive "$dest"
  touch "$dest/.complete"
  say "Test server ready: $dest/temporal-test-server"
}

# Best effort: a dynamic CDS archive halves the JVM's start-up. Without it the launcher still works.
build_class_archive() {
  local dest="$1" port pid
  port="$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")"
  java -XX:ArchiveClassesAtExit="$dest/classes.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off \
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -cp "$dest/lib/*" io.temporal.testserver.TestServer "$port" \
    >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  sleep 1
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [[ -f "$dest/classes.jsa" ]]; then say "class-data archive written"; else say "no class-data archive (start-up is slower, still works)"; fi
}

# The whole CLI, for the test that calls our workflows as an outside service would: `go install` works up to 1.5.1 (see
# above for later versions). Its `workflow` commands are those of the current CLI.
install_caller_cli() {
  local dest="$cache/temporal-cli-$caller_version-full"
  if [[ -n "${TEMPORAL_CALLER_CLI_PATH:-}" ]]; then
    say "TEMPORAL_CALLER_CLI_PATH is set ($TEMPORAL_CALLER_CLI_PATH): not building the caller CLI."
    return
  fi
  if [[ -x "$dest/temporal" ]]; then
    say "Temporal CLI $caller_version (the caller) present: $dest/temporal"
    return
  fi
  have_go "the whole Temporal CLI (the caller)" "its test runs the temporal on the PATH" || return 0
  say "Building Temporal CLI $caller_version (the caller) with $(go version) ..."
  local tmp
  tmp="$(mktemp -d "$cache/.cli-build.XXXXXX")"
  GOBIN="$tmp/bin" GOSUMDB="$sumdb" GOFLAGS="${GOFLAGS:-} -buildvcs=false" CGO_ENABLED=0 \
    go install -trimpath -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$caller_version" \
    "github.com/temporalio/cli/cmd/temporal@v$caller_version"
  mkdir -p "$dest"
  mv "$tmp/bin/temporal" "$dest/temporal.new" && mv "$dest/temporal.new" "$dest/temporal"
  rm -rf "$tmp"
  "$dest/temporal" --version >&2
}

install_cli
# `--dev-server`: only what `npm start` runs (the demo needs neither the test server nor the caller CLI).
[[ "${1:-}" == "--dev-server" ]] && exit 0
install_test_server
install_caller_cli
