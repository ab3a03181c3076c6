#!/usr/bin/env bash
# test.sh is the README's test command: it installs what is missing
# (scripts/setup.sh) and runs every test, integration tests included, in the
# main module and then in the compat/ module, then the conformance suite's CI
# subset (compat/conformance/ci.sh).
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
# The Kubernetes conformance suite's CI subset (issue 22): the API machinery
# [Conformance] specs in compat/conformance/ci-specs.txt, unpatched, against
# a minicluster with simulated nodes; fails unless each one passes.
echo "[test] compat/conformance/ci.sh (conformance subset)"
bash compat/conformance/ci.sh
