#!/usr/bin/env bash
# test.sh is the README's test command: it installs what is missing
# (scripts/setup.sh) and runs every test, integration tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
bash scripts/setup.sh
echo "[test] go vet ./..."
go vet ./...
echo "[test] go test -race ./..."
go test -race -timeout 40m "$@" ./...
