#!/usr/bin/env bash
# test.sh is the README's test command: it installs what is missing
# (scripts/setup.sh) and runs every test, integration tests included, in the
# main module and then in the compat/ module.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
bash scripts/setup.sh
echo "[test] go vet ./..."
go vet ./...
echo "[test] go test -race ./..."
go test -race -timeout 40m "$@" ./...
# compat/ is a module of its own (client-go, controller-runtime): ./... above
# does not reach it.
echo "[test] compat: go vet ./..."
(cd compat && go vet ./...)
echo "[test] compat: go test -race ./..."
(cd compat && go test -race -timeout 20m "$@" ./...)
