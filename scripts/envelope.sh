#!/usr/bin/env bash
# envelope.sh is the scalability-envelope run (issue 20 item 3) as one
# command: a minicluster with only simulated nodes (real kubelets on a fake
# runtime: Leases every 10 s, status at the kubelet's intervals), pods from
# Deployments, and the figures BENCHMARKS.md records, printed as it goes:
#   - time from the Deployments' creation to every pod ready;
#   - the process's peak and steady RSS, steady CPU (cores), Go heap per pod;
#   - `kubectl get pods -A` (kubectl's default: Table, 500 per page) and a
#     paginated list of the whole objects (`--chunk-size=500 -o json`);
#   - a fresh client-go pod informer's sync (compat's loadgen, -mode relist);
#   - restart on the same data dir: API ready, then every pod listed.
#
#   bash scripts/envelope.sh                       # 5,000 nodes, 150,000 pods
#   NODES=500 PODS=10000 bash scripts/envelope.sh  # a smaller shape
#
# Needs go and kubectl (scripts/setup.sh installs them); no root. It starts
# only its own minicluster, stops it by PID, and leaves its data in DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin

NODES=${NODES:-5000}
PODS=${PODS:-150000}
PER=${PER_DEPLOYMENT:-1000}
DIR=${DIR:-/tmp/orkit-envelope}
LISTEN=${LISTEN:-127.0.0.1:16443}
TIMEOUT=${TIMEOUT:-5400} # seconds to wait for every pod to be ready
STEADY=${STEADY:-60}     # seconds of steady state to sample
if ((PODS % PER != 0)); then
	echo "envelope: PODS ($PODS) must be a multiple of PER_DEPLOYMENT ($PER)" >&2
	exit 2
fi
deployments=$((PODS / PER))

say() { echo "[envelope $(date -u +%H:%M:%S)] $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

say "building minicluster and loadgen into $DIR/bin"
mkdir -p "$DIR/bin"
go build -o "$DIR/bin/minicluster" ./examples/minicluster
(cd compat && go build -o "$DIR/bin/loadgen" ./cmd/loadgen)
rm -rf "$DIR/data"
export KUBECONFIG=$DIR/data/admin.kubeconfig

pid=""
stop_cluster() {
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		wait "$pid" || true
	fi
	pid=""
}
trap stop_cluster EXIT

start_cluster() {
	"$DIR/bin/minicluster" --data-dir "$DIR/data" --listen "$LISTEN" --nodes 0 --sim-nodes "$NODES" \
		--cluster-cidr 10.0.0.0/8 >>"$DIR/minicluster.log" 2>&1 &
	pid=$!
	local deadline=$((SECONDS + 600))
	until [[ -f $KUBECONFIG ]] && kubectl get --raw /readyz >/dev/null 2>&1; do
		kill -0 "$pid" 2>/dev/null || { say "minicluster exited; see $DIR/minicluster.log"; exit 1; }
		((SECONDS < deadline)) || { say "API not ready after 600 s"; exit 1; }
		sleep 0.2
	done
}

# proc prints "cpu_seconds rss_kib hwm_kib" of the minicluster process.
proc() {
	local tick stat
	tick=$(getconf CLK_TCK)
	stat=$(cut -d' ' -f14,15 "/proc/$pid/stat")
	awk -v t="$tick" -v s="$stat" -v f="/proc/$pid/status" 'BEGIN {
		split(s, a, " "); cpu = (a[1] + a[2]) / t
		while ((getline l < f) > 0) { split(l, x, " "); if (x[1] == "VmRSS:") r = x[2]; if (x[1] == "VmHWM:") h = x[2] }
		printf "%.1f %d %d", cpu, r, h }'
}
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
heap() { kubectl get --raw /metrics | awk '$1 == "go_memstats_heap_inuse_bytes" { printf "%.0f", $2 }'; }
ready_nodes() { kubectl get nodes --no-headers 2>/dev/null | awk '$2 == "Ready" { n++ } END { print n + 0 }'; }
ready_pods() {
	kubectl get deployments -n envelope -o jsonpath='{range .items[*]}{.status.readyReplicas}{"\n"}{end}' 2>/dev/null |
		awk '{ s += $1 } END { print s + 0 }'
}
wait_for() { # name target function
	local deadline=$((SECONDS + TIMEOUT)) got last=0
	while got=$($3) && ((got < $2)); do
		((SECONDS < deadline)) || { say "$1: $got of $2 after $TIMEOUT s"; exit 1; }
		if ((SECONDS - last >= 15)); then
			read -r cpu rss hwm <<<"$(proc)"
			say "$1: $got of $2 (RSS $(mib "$rss"), CPU so far ${cpu} s, load $(cut -d' ' -f1-3 /proc/loadavg))"
			last=$SECONDS
		fi
		sleep 2
	done
}

say "starting a minicluster: $NODES simulated nodes, no real node, data in $DIR/data (log: $DIR/minicluster.log)"
: >"$DIR/minicluster.log"
t=$(now)
start_cluster
say "API ready in $(since "$t") s"
wait_for "nodes Ready" "$NODES" ready_nodes
say "all $NODES nodes Ready $(since "$t") s after start"
heap0=$(heap)

say "creating $deployments Deployments of $PER replicas ($PODS pods) in namespace envelope"
kubectl create namespace envelope >/dev/null
t=$(now)
for ((i = 0; i < deployments; i++)); do
	cat <<EOF
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: envelope-$i, namespace: envelope}
spec:
  replicas: $PER
  selector: {matchLabels: {app: envelope-$i}}
  template:
    metadata: {labels: {app: envelope-$i}}
    spec:
      containers: [{name: app, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 1m, memory: 1Mi}}}]
EOF
done | kubectl apply -f - >/dev/null
wait_for "pods ready" "$PODS" ready_pods
running=$(since "$t")
say "FIGURE all $PODS pods ready ${running} s after the Deployments were created ($(awk -v p="$PODS" -v s="$running" 'BEGIN { printf "%.0f", p / s }') pods/s)"

read -r cpu0 _ _ <<<"$(proc)"
sleep "$STEADY"
read -r cpu1 rss hwm <<<"$(proc)"
heap1=$(heap)
say "FIGURE steady state over $STEADY s: $(awk -v a="$cpu0" -v b="$cpu1" -v s="$STEADY" 'BEGIN { printf "%.2f", (b - a) / s }') cores; RSS $(mib "$rss"); peak RSS $(mib "$hwm"); load $(cut -d' ' -f1-3 /proc/loadavg)"
say "FIGURE Go heap in use: $((heap0 / 1048576)) MiB with nodes only, $((heap1 / 1048576)) MiB with the pods: $(((heap1 - heap0) / PODS)) bytes per pod (watch cache and the in-process controllers', scheduler's and simulated kubelets' informers)"

t=$(now)
n=$(kubectl get pods -A --no-headers | wc -l)
say "FIGURE kubectl get pods -A (Table, kubectl's default 500 per page): $n rows in $(since "$t") s"
t=$(now)
b=$(kubectl get pods -A --chunk-size=500 -o json | wc -c)
say "FIGURE kubectl get pods -A --chunk-size=500 -o json: $((b / 1048576)) MiB in $(since "$t") s"
say "FIGURE $("$DIR/bin/loadgen" -kubeconfig "$KUBECONFIG" -mode relist -n "$PODS" | head -1)"

say "restarting the minicluster on the same data dir"
stop_cluster
t=$(now)
start_cluster
say "FIGURE restart: API ready in $(since "$t") s"
n=$(kubectl get pods -A --chunk-size=0 -o name | wc -l)
say "FIGURE restart: all $n pods listed $(since "$t") s after start"
wait_for "nodes Ready after restart" "$NODES" ready_nodes
read -r _ rss hwm <<<"$(proc)"
say "FIGURE restart: RSS $(mib "$rss"), peak $(mib "$hwm")"
stop_cluster
say "done; data left in $DIR/data"
