#!/bin/bash
# internal/bench/apiload/compare-kube.sh (from the repository root): BENCHMARKS.md "orkit and
# kube-apiserver on the same etcd". ConfigMap creates through the whole chain, measured with
# orkit's apiload and with compat's client-go loadgen, against
#   - orkit's API server (apiload serve) on a fresh single-member etcd, and
#   - kube-apiserver v1.37.2 (built from the conformance suite's pinned k8s.io/kubernetes module,
#     compat/conformance/suite) on a fresh single-member etcd,
# alternating, ROUNDS times (default 2). Needs etcd (ETCD_BIN), openssl and curl; loopback ports
# 17449, 23792 and 23802 only. Each server's and etcd's CPU per create comes from /proc/<pid>/stat.
set -u
B=${DIR:-/tmp/bkube}; rm -rf "$B"; mkdir -p "$B"
ROUNDS=${ROUNDS:-2}
ETCD=${ETCD_BIN:-etcd}
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${ORKIT_CONFORMANCE_CACHE:-$HOME/.cache/orkit/conformance/v1.37.2}
log() { echo "compare-kube: $*" >&2; }

log "building apiload, loadgen and kube-apiserver (cached in $cache)"
(cd "$repo" && go build -o "$B/apiload" ./internal/bench/apiload) || exit 1
(cd "$repo/compat" && go build -o "$B/loadgen" ./cmd/loadgen) || exit 1
if [ ! -x "$cache/kube-apiserver" ]; then
	mkdir -p "$cache"
	(cd "$repo/compat/conformance/suite" && go build -o "$cache/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver) || exit 1
fi

# kube's PKI: a CA, the serving certificate for 127.0.0.1, an admin client (system:masters)
# and the service-account key pair.
pki=$B/kube-pki; mkdir -p "$pki"
(
	cd "$pki" || exit 1
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=bench-ca 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
	openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 2 -extfile san.ext 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
	openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 2 2>/dev/null
	openssl genrsa -out sa.key 2048 2>/dev/null
	openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
) || exit 1
b64() { base64 -w0 <"$1"; }
cat >"$B/kube.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: kube, cluster: {server: "https://127.0.0.1:17449", certificate-authority-data: $(b64 "$pki/ca.crt")}}]
users: [{name: admin, user: {client-certificate-data: $(b64 "$pki/admin.crt"), client-key-data: $(b64 "$pki/admin.key")}}]
contexts: [{name: kube, context: {cluster: kube, user: admin}}]
current-context: kube
EOF

start_etcd() {
	rm -rf "$B/etcd"; mkdir -p "$B/etcd"
	$ETCD --name m0 --data-dir "$B/etcd/data" --listen-client-urls http://127.0.0.1:23792 --advertise-client-urls http://127.0.0.1:23792 \
		--listen-peer-urls http://127.0.0.1:23802 --initial-advertise-peer-urls http://127.0.0.1:23802 --initial-cluster m0=http://127.0.0.1:23802 \
		--max-request-bytes 2097152 --log-level warn >"$B/etcd/log" 2>&1 &
	EPID=$!
	for _ in $(seq 50); do curl -sf http://127.0.0.1:23792/health >/dev/null && return; sleep 0.2; done
	log "etcd did not start"; exit 1
}
start_orkit() { # $1 = run name
	rm -rf "$B/$1"; mkdir -p "$B/$1"
	"$B/apiload" -data-dir "$B/$1" -listen 127.0.0.1:17449 -etcd-servers http://127.0.0.1:23792 serve >"$B/$1.log" 2>&1 &
	SPID=$!
	for _ in $(seq 150); do grep -q serving "$B/$1.log" && [ -f "$B/$1/loader.kubeconfig" ] && { KC=$B/$1/loader.kubeconfig; return; }; sleep 0.2; done
	log "orkit did not start"; exit 1
}
start_kube() { # $1 = run name
	"$cache/kube-apiserver" --etcd-servers http://127.0.0.1:23792 --bind-address 127.0.0.1 --secure-port 17449 \
		--tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" --client-ca-file "$pki/ca.crt" \
		--service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
		--service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.96.0.0/12 \
		--authorization-mode Node,RBAC --cert-dir "$B/$1-certs" >"$B/$1.log" 2>&1 &
	SPID=$!
	KC=$B/kube.kubeconfig
	for _ in $(seq 300); do kubectl --kubeconfig "$KC" get --raw /readyz >/dev/null 2>&1 && return; sleep 0.2; done
	log "kube-apiserver did not become ready"; tail -20 "$B/$1.log" >&2; exit 1
}
# stop ends a process this script started (by PID): SIGTERM, then SIGKILL
# after 30 s.
stop() {
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq 150); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }; sleep 0.2; done
	log "pid $1 still running after 30 s: SIGKILL"
	kill -9 "$1" 2>/dev/null; wait "$1" 2>/dev/null
}
stopall() { stop "$SPID"; stop "$EPID"; }
cpu() { awk '{print ($14+$15)/100}' "/proc/$1/stat"; }
measure() { # $1 = label; runs apiload then loadgen, printing CPU seconds of server and etcd
	local c0 e0 c1 e1
	echo "== $1 $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
	c0=$(cpu "$SPID"); e0=$(cpu "$EPID")
	"$B/apiload" -kubeconfig "$KC" -clients 32 -duration 15s creates
	c1=$(cpu "$SPID"); e1=$(cpu "$EPID")
	echo "apiload: server cpu s $(echo "$c1 - $c0" | bc), etcd cpu s $(echo "$e1 - $e0" | bc)"
	c0=$c1; e0=$e1
	"$B/loadgen" -kubeconfig "$KC" -namespace default -mode creates -n 20000
	c1=$(cpu "$SPID"); e1=$(cpu "$EPID")
	echo "loadgen: server cpu s $(echo "$c1 - $c0" | bc), etcd cpu s $(echo "$e1 - $e0" | bc)"
}
for round in $(seq "$ROUNDS"); do
	start_etcd; start_orkit "orkit$round"; measure "round $round orkit on etcd"; stopall
	start_etcd; start_kube "kube$round"; measure "round $round kube-apiserver on etcd"; stopall
done
