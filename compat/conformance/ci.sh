#!/usr/bin/env bash
# ci.sh is CI's conformance check (issue 22: "CI runs a fast subset"). It
# builds suite/subset, a test binary of the Kubernetes e2e suite's own,
# unpatched framework with only its test/e2e/apimachinery and
# test/e2e/architecture specs (the whole test/e2e takes far longer to build
# than CI allows), starts a minicluster with two simulated nodes, runs the
# [Conformance] specs listed in ci-specs.txt (API machinery specs that need
# no running containers) and fails unless every one of them ran and passed.
#
#   bash compat/conformance/ci.sh                 # what scripts/test.sh runs
#   bash compat/conformance/ci.sh --procs 3 --out /tmp/orkit-conformance/ci-1
#
# Options:
#   --out DIR      where the binaries, logs and reports go
#                  (default /tmp/orkit-conformance/ci-<time>)
#   --procs N      ginkgo parallel processes (default 3)
#   --timeout D    ginkgo's whole-run timeout (default 15m)
#   --specs FILE   the spec list (default ci-specs.txt next to this script)
#
# It runs run.sh --suite subset --require FILE; the report of the run is
# OUT/CONFORMANCE.md, ginkgo's log OUT/ginkgo.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

out=/tmp/orkit-conformance/ci-$(date -u +%Y%m%dT%H%M%SZ)
procs=3
timeout=15m
specs=$here/ci-specs.txt
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--procs) procs=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--specs) specs=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ci.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done

# run.sh waits for the nodes and the suite drives kubectl: fail at once
# rather than after run.sh's 15-minute wait.
command -v kubectl >/dev/null || { echo "ci.sh: kubectl is required (not on PATH)" >&2; exit 1; }

# The focus is the list's names, each matched literally.
names=$(grep -v '^[[:space:]]*#' "$specs" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | grep -v '^$')
count=$(printf '%s\n' "$names" | wc -l)
focus=$(printf '%s\n' "$names" | sed 's/[][\\.*^$()+?{}|]/\\&/g' | paste -sd'|')

echo "[ci.sh] $count conformance specs from ${specs#"$here"/} on 2 simulated nodes, $procs ginkgo processes, timeout $timeout; output in $out"
printf '%s\n' "$names" | sed 's/^/[ci.sh]   /'
start=$SECONDS
set +e
bash "$here/run.sh" --suite subset --sim-nodes 2 --procs "$procs" --timeout "$timeout" \
	--focus "$focus" --require "$specs" --out "$out" --md "$out/CONFORMANCE.md"
rc=$?
set -e
echo "[ci.sh] $([ $rc -eq 0 ] && echo PASSED || echo FAILED) after $(((SECONDS - start) / 60))m$(((SECONDS - start) % 60))s (report: $out/CONFORMANCE.md)"
exit $rc
