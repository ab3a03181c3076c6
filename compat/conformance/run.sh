#!/usr/bin/env bash
# run.sh runs the Kubernetes conformance suite (the [Conformance] specs of
# k8s.io/kubernetes test/e2e, pinned in suite/go.mod) against a fresh orkit
# minicluster and writes a report of the run (OUT/CONFORMANCE.md); with
# --keep NAME it keeps the run's results in compat/conformance/results and
# regenerates the repository's CONFORMANCE.md from every kept run.
#
#   bash compat/conformance/run.sh                          # every sig, 2 simulated nodes
#   bash compat/conformance/run.sh --sig api-machinery      # one sig
#   bash compat/conformance/run.sh --nodes 2 --sim-nodes 0  # real nodes (takes the real-node lock)
#   bash compat/conformance/run.sh --build-only             # only build (and cache) the binaries
#   bash compat/conformance/run.sh --regenerate             # CONFORMANCE.md from the kept results
#
# Options:
#   --focus RE       ginkgo focus (default '\[Conformance\]')
#   --sig NAME       shorthand: focus '\[sig-NAME\].*\[Conformance\]'
#   --skip RE        ginkgo skip (default: none)
#   --nodes N        real nodes (default 0); N > 0 holds /tmp/orkit-realnodes.lock for the run,
#                    and runs a local registry (Debian docker-registry, on loopback) holding
#                    the suite's images as the nodes' only source of registry.k8s.io pulls
#   --sim-nodes N    simulated nodes (default 2: the suite wants two schedulable nodes)
#   --procs N        ginkgo parallel processes (default 4; [Serial] specs run alone at the end)
#   --timeout D      ginkgo's whole-suite timeout (default 3h); the specs keep their own timeouts
#   --out DIR        where logs and reports go (default /tmp/orkit-conformance/<time>)
#   --md FILE        the run's report (default OUT/CONFORMANCE.md); every run
#                    given with --merge is reported too
#   --merge DIR      also report the results of an earlier run directory or kept
#                    results file (repeatable)
#   --keep NAME      keep this run's results in the repository, as
#                    compat/conformance/results/NAME.json, and regenerate
#                    CONFORMANCE.md from every kept result (in file-name order;
#                    a later run's outcome of a spec wins)
#   --regenerate     only regenerate CONFORMANCE.md from the kept results
#   --build-only     build the cached binaries and stop
#   --suite NAME     e2e (default): the whole suite (k8s.io/kubernetes/test/e2e),
#                    built once and cached; subset: suite/subset, the suite's
#                    framework with only its apimachinery and architecture
#                    specs (quicker to build), built with ginkgo and report
#                    into OUT/bin on every run (Go's build cache makes a
#                    rebuild quick)
#   --require FILE   exit 1 unless every spec named in FILE (one full name a
#                    line) ran and passed; ci.sh's check
#
# The binaries (e2e.test, ginkgo, report) are built once per suite version
# into $ORKIT_CONFORMANCE_CACHE (default ~/.cache/orkit/conformance/<version>),
# so a second run does not rebuild; building e2e.test takes ~10-20 minutes
# on two cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH=$PATH:/usr/local/go/bin

# The pinned version, from a one-line require or a require block.
version=$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3; exit} $1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$here/suite/go.mod")
[ -n "$version" ] || { echo "run.sh: no k8s.io/kubernetes version in $here/suite/go.mod" >&2; exit 1; }
cache=${ORKIT_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/orkit/conformance/$version}

focus='\[Conformance\]'
skip=''
nodes=0
sim_nodes=2
procs=4
timeout=3h
out=/tmp/orkit-conformance/$(date -u +%Y%m%dT%H%M%SZ)
md=''
merge=()
build_only=false
regenerate=false
keep=''
suite=e2e
require=''
args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--focus) focus=$2; shift 2 ;;
	--sig) focus="\\[sig-$2\\].*\\[Conformance\\]"; shift 2 ;;
	--skip) skip=$2; shift 2 ;;
	--nodes) nodes=$2; shift 2 ;;
	--sim-nodes) sim_nodes=$2; shift 2 ;;
	--procs) procs=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--md) md=$2; shift 2 ;;
	--merge) merge+=("$2"); shift 2 ;;
	--build-only) build_only=true; shift ;;
	--regenerate) regenerate=true; shift ;;
	--keep) keep=$2; shift 2 ;;
	--suite) suite=$2; shift 2 ;;
	--require) require=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done

log() { echo "[conformance $(date -u +%H:%M:%S)] $*"; }

# bin is where the binaries go: the whole suite's are cached per version; the
# subset's source is this checkout's, so it builds into the run directory.
case $suite in
e2e) bin=$cache test_bin=$cache/e2e.test ;;
subset)
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	bin=$out/bin test_bin=$out/bin/subset.test
	;;
*) echo "run.sh: --suite is e2e or subset, not $suite" >&2; exit 2 ;;
esac
if [ -n "$require" ]; then
	[ -f "$require" ] || { echo "run.sh: --require $require: no such file" >&2; exit 2; }
	require=$(cd "$(dirname "$require")" && pwd)/$(basename "$require")
fi

# build builds the pinned suite's binaries into $bin, e2e.test and ginkgo
# only if missing.
build() {
	mkdir -p "$bin"
	cd "$here/suite"
	# The suite reads its own version (k8s.io/component-base/version) to
	# pick pod-security fixtures ("restricted/v1.37"); set it as the
	# release build does, or specs find no fixture for v0.0.
	local minor=${version#v1.}
	minor=${minor%%.*}
	local ldflags="-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitVersion=$version"
	if [ "$suite" = subset ]; then
		log "building subset.test $version into $bin (go test -c ./subset: framework + test/e2e/apimachinery + architecture)"
		go test -c -vet=off -ldflags "$ldflags" -o "$test_bin" ./subset
	elif [ ! -x "$test_bin" ]; then
		log "building e2e.test $version into $cache (once; ~10-20 minutes on two cores)"
		go test -c -vet=off -ldflags "$ldflags" -o "$cache/e2e.test.tmp" k8s.io/kubernetes/test/e2e
		mv "$cache/e2e.test.tmp" "$cache/e2e.test"
	fi
	if [ ! -x "$bin/ginkgo" ]; then
		log "building ginkgo (the suite's version)"
		go build -o "$bin/ginkgo" github.com/onsi/ginkgo/v2/ginkgo
	fi
	# report is orkit's own, small: rebuilt when its source changes.
	go build -o "$bin/report" ./report
	cd - >/dev/null
}

# regenerate writes CONFORMANCE.md from the kept results of every run.
kept=$here/results
# suite_specs prints the path of suite-specs.txt: every [Conformance] spec
# of the pinned suite (first line "# VERSION"), which the report measures
# the results against. It is kept in the repository; when the pin moves it
# is rebuilt from a ginkgo dry run of e2e.test.
suite_specs() {
	local list=$here/suite-specs.txt dry
	if [ "$(head -1 "$list" 2>/dev/null)" != "# $version" ]; then
		dry=$(mktemp -d)
		"$cache/e2e.test" --ginkgo.dry-run --ginkgo.no-color --ginkgo.focus='\[Conformance\]' \
			--ginkgo.json-report="$dry/report.json" >/dev/null 2>&1 || true
		{ echo "# $version"; "$bin/report" --list "$dry"; } >"$list.tmp" && mv "$list.tmp" "$list"
		rm -rf "$dry"
	fi
	echo "$list"
}

regenerate() {
	"$bin/report" --causes "$here/causes.txt" --notes "$here/notes.md" --suite "$(suite_specs)" \
		--md "$repo/CONFORMANCE.md" "$kept"/*.json
	log "wrote $repo/CONFORMANCE.md from $(ls "$kept"/*.json | wc -l) kept runs in $kept"
}

build
if $regenerate; then
	regenerate
	exit 0
fi
if $build_only; then
	log "built: $(ls "$bin" | tr '\n' ' ')"
	exit 0
fi

# Real nodes share containerd, CNI and nftables with other users of this
# machine: the whole run holds the real-node lock.
if [ "$nodes" -gt 0 ] && [ -z "${ORKIT_CONFORMANCE_LOCKED:-}" ]; then
	log "waiting for the real-node lock /tmp/orkit-realnodes.lock"
	ORKIT_CONFORMANCE_LOCKED=1 exec flock -o /tmp/orkit-realnodes.lock "$0" "${args[@]}"
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$md" ] || md=$out/CONFORMANCE.md
data=$out/cluster
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 16443)

# The minicluster is the checkout's own, built into the run directory (not
# the shared cache), so runs from several checkouts cannot swap binaries.
log "building the minicluster"
(cd "$repo" && go build -o "$out/minicluster" ./examples/minicluster)

# Real nodes pull registry.k8s.io's images (pull policy Always: the
# ImageVolume spec) only from a local registry on loopback, which gets the
# suite's images below: no pull leaves the machine. Without Debian's
# docker-registry the mirror port stays closed and such pulls fail.
mirror_flags=()
reg_pid=''
if [ "$nodes" -gt 0 ]; then
	reg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mirror_flags=(--registry-mirror "registry.k8s.io=127.0.0.1:$reg_port")
	if command -v docker-registry >/dev/null; then
		mkdir -p "$out/registry"
		printf 'version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
			"$out/registry/data" "$reg_port" >"$out/registry/config.yml"
		docker-registry serve "$out/registry/config.yml" >"$out/registry/registry.log" 2>&1 &
		reg_pid=$!
		log "local registry mirror for registry.k8s.io on 127.0.0.1:$reg_port (pid $reg_pid)"
	else
		log "no docker-registry: pulls of registry.k8s.io images (pull policy Always) will fail"
	fi
fi

log "starting the minicluster: $nodes real, $sim_nodes simulated nodes, API at 127.0.0.1:$port, data in $data"
# Run in orkit's module: the minicluster builds its bundled images there.
(cd "$repo" && exec "$out/minicluster" --data-dir "$data" --listen "127.0.0.1:$port" \
	--nodes "$nodes" --sim-nodes "$sim_nodes" "${mirror_flags[@]}") >"$out/minicluster.log" 2>&1 &
mc=$!
stop_cluster() {
	if kill -0 "$mc" 2>/dev/null; then
		log "stopping the minicluster (pid $mc)"
		kill -INT "$mc" 2>/dev/null || true
		for _ in $(seq 90); do kill -0 "$mc" 2>/dev/null || break; sleep 1; done
		kill -KILL "$mc" 2>/dev/null || true
	fi
	wait "$mc" 2>/dev/null || true
	if [ -n "$reg_pid" ]; then
		kill "$reg_pid" 2>/dev/null || true
		wait "$reg_pid" 2>/dev/null || true
		reg_pid=''
	fi
}
trap stop_cluster EXIT

export KUBECONFIG=$data/admin.kubeconfig
want=$((nodes + sim_nodes))
deadline=$((SECONDS + 900))
until [ -f "$KUBECONFIG" ] && [ "$(kubectl get nodes --no-headers 2>/dev/null | grep -c ' Ready')" -ge "$want" ]; do
	if ! kill -0 "$mc" 2>/dev/null; then
		echo "minicluster exited:" >&2; tail -30 "$out/minicluster.log" >&2; exit 1
	fi
	if [ $SECONDS -ge $deadline ]; then
		echo "nodes not Ready after 15 minutes:" >&2; tail -30 "$out/minicluster.log" >&2; exit 1
	fi
	sleep 2
done
kubectl get nodes -o wide >"$out/nodes.txt"

# The suite's images (images.sh: built offline, cached) go into every real
# node's containerd namespace under the names the suite asks for.
if [ "$nodes" -gt 0 ]; then
	log "building the suite's images (images.sh) into $cache/images"
	archives=$(bash "$here/images.sh" "$cache/images" "$test_bin")
	for i in $(seq "$nodes"); do
		for a in $archives; do
			ctr --address "$data/containerd/containerd.sock" -n "orkit-node-$i" images import "$a" >/dev/null
		done
	done
	ctr --address "$data/containerd/containerd.sock" -n orkit-node-1 images ls -q >"$out/images.txt"
	log "images imported into $nodes node(s): $(tr '\n' ' ' <"$out/images.txt")"
	if [ -n "$reg_pid" ]; then
		for ref in $(grep '^registry\.k8s\.io/' "$out/images.txt"); do
			ctr --address "$data/containerd/containerd.sock" -n orkit-node-1 images push --plain-http \
				"127.0.0.1:$reg_port/${ref#registry.k8s.io/}" "$ref" >>"$out/registry/push.log" 2>&1 ||
				log "push of $ref to the local registry failed (see $out/registry/push.log)"
		done
		log "images pushed to the local registry 127.0.0.1:$reg_port"
	fi
fi
log "cluster up: $(kubectl get nodes --no-headers | awk '{print $1}' | tr '\n' ' ')"

cat >"$out/meta.txt" <<EOF
version=$version
suite=$suite
focus=$focus
skip=$skip
nodes=$nodes
sim_nodes=$sim_nodes
procs=$procs
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
command=bash compat/conformance/run.sh $(printf "%q " "${args[@]}")
EOF

ginkgo_flags=(--procs="$procs" --timeout="$timeout" --no-color --output-dir="$out"
	--json-report=report.json --junit-report=junit.xml --focus="$focus")
[ -n "$skip" ] && ginkgo_flags+=(--skip="$skip")
log "running $(basename "$test_bin"): focus '$focus' skip '$skip', $procs processes (log: $out/ginkgo.log)"
set +e
"$bin/ginkgo" "${ginkgo_flags[@]}" "$test_bin" -- \
	--kubeconfig="$KUBECONFIG" --provider=skeleton --kubectl-path="$(command -v kubectl)" \
	--e2e-output-dir="$out/e2e" --disable-log-dump >"$out/ginkgo.log" 2>&1
rc=$?
set -e
echo "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$out/meta.txt"
echo "ginkgo_exit=$rc" >>"$out/meta.txt"
tail -5 "$out/ginkgo.log"
stop_cluster
trap - EXIT

if [ ! -f "$out/report.json" ]; then
	echo "run.sh: ginkgo wrote no report (exit $rc); see $out/ginkgo.log" >&2
	exit 1
fi
# results.json: the run's outcomes, small enough to keep in the repository.
"$bin/report" --save "$out/results.json" --md /dev/null "$out"
report_flags=(--causes "$here/causes.txt" --md "$md")
# notes.md describes the full runs behind CONFORMANCE.md, not a subset run.
[ "$suite" = e2e ] && report_flags+=(--notes "$here/notes.md" --suite "$(suite_specs)")
[ -n "$require" ] && report_flags+=(--require "$require")
set +e
"$bin/report" "${report_flags[@]}" "${merge[@]}" "$out"
rc=$?
set -e
log "wrote $md from $out ${merge[*]}"
if [ -n "$keep" ]; then
	cp "$out/results.json" "$kept/$keep.json"
	log "kept $out/results.json as $kept/$keep.json"
	regenerate
fi
if [ $rc -ne 0 ]; then
	if [ -n "$require" ]; then
		log "FAILED: not every spec $require names passed (above; details in $md and $out/ginkgo.log)"
	else
		log "FAILED: report exited $rc"
	fi
	exit 1
fi
