#!/usr/bin/env bash
# scripts/hacluster.sh DATA — a 3-server, 3-agent orkit cluster on this machine, in the
# foreground until Ctrl-C (which stops everything it started and removes its namespaces and
# bridge; the data stays in DATA, and the same command starts the cluster again on it).
#
#   - 3 etcd members on loopback (DATA/etcd-<i>), `etcd` from PATH or $ETCD_BIN;
#   - 3 `minicluster --role server` on 127.0.0.1:1644<i> or the next free port (DATA/server-<i>, the CA copied from
#     server-1), leader-elected controller manager and scheduler;
#   - haproxy on the host bridge's address ($SUBNET.1:6443), TCP, health-checked on /readyz;
#   - 3 "hosts": network namespaces orkit-ha-<i> on the bridge orkitha0 at $SUBNET.1<i>, each
#     running `minicluster --role agent` (its own containerd, CNI bridge, pod CIDR, host-gw
#     routes) joining through haproxy.
#
# Then: export KUBECONFIG=DATA/admin.kubeconfig (it names the balancer). Needs root, etcd,
# haproxy, containerd, runc, the CNI plugins and nsenter (scripts/setup.sh installs them).
# On separate machines the same flags place the roles: see README "Several servers on etcd".
set -euo pipefail
DATA=${1:?usage: scripts/hacluster.sh DATA}
SUBNET=${SUBNET:-10.251.0} # the hosts' /24, without the last octet
ETCD=${ETCD_BIN:-etcd}
BR=orkitha0
cd "$(dirname "$0")/.."
mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)
say() { printf '[hacluster] %s\n' "$*"; }

pids=()
cleanup() {
	trap - EXIT INT TERM
	say "stopping"
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for i in 1 2 3; do ip netns del "orkit-ha-$i" 2>/dev/null || true; done
	ip link del "$BR" 2>/dev/null || true
}
trap cleanup EXIT INT TERM
bg() { # bg LOG CMD...: run CMD in the background, logging to LOG
	local log=$1
	shift
	"$@" >>"$log" 2>&1 &
	pids+=($!)
}
waitfor() { # waitfor WHAT CMD...: poll CMD for 180 s
	local what=$1
	shift
	for _ in $(seq 900); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
	say "timed out waiting for $what"
	exit 1
}

# freeport BASE: the first port from BASE on that nothing on 127.0.0.1 answers
freeport() {
	local p=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
	echo "$p"
}

go build -o "$DATA/minicluster" ./examples/minicluster
say "minicluster built"

ip link add "$BR" type bridge
ip addr add "$SUBNET.1/24" dev "$BR"
ip link set "$BR" up

# etcd's peer URLs are its identity: a restart on DATA keeps the ports of the first start.
if [ ! -f "$DATA/ports" ]; then
	{
		for i in 1 2 3; do echo "etcd_client_$i=$(freeport "${i}2379")" "etcd_peer_$i=$(freeport "${i}2380")" "server_$i=$(freeport "1644$i")"; done
	} >"$DATA/ports"
fi
# shellcheck disable=SC1091
. "$DATA/ports"
peers=e1=http://127.0.0.1:$etcd_peer_1,e2=http://127.0.0.1:$etcd_peer_2,e3=http://127.0.0.1:$etcd_peer_3
endpoints=http://127.0.0.1:$etcd_client_1,http://127.0.0.1:$etcd_client_2,http://127.0.0.1:$etcd_client_3
for i in 1 2 3; do
	c=etcd_client_$i p=etcd_peer_$i
	bg "$DATA/etcd-$i.log" "$ETCD" --name "e$i" --data-dir "$DATA/etcd-$i" \
		--listen-client-urls "http://127.0.0.1:${!c}" --advertise-client-urls "http://127.0.0.1:${!c}" \
		--listen-peer-urls "http://127.0.0.1:${!p}" --initial-advertise-peer-urls "http://127.0.0.1:${!p}" \
		--initial-cluster "$peers" --initial-cluster-token orkit-ha --max-request-bytes 2097152
done
waitfor "etcd" curl -sf "http://127.0.0.1:$etcd_client_1/health"
say "etcd members up: $endpoints"

server() { # server I: start server-I and wait until it serves
	local port=server_$1
	bg "$DATA/server-$1.log" "$DATA/minicluster" --role server --data-dir "$DATA/server-$1" --listen "127.0.0.1:${!port}" \
		--identity "server-$1" --tls-san "$SUBNET.1" --etcd-servers "$endpoints"
	waitfor "server-$1" kubectl --kubeconfig "$DATA/server-$1/admin.kubeconfig" get --raw /readyz
}
server 1
for i in 2 3; do
	mkdir -p "$DATA/server-$i/pki"
	cp -n "$DATA/server-1/pki/ca.crt" "$DATA/server-1/pki/ca.key" "$DATA/server-$i/pki/"
	server "$i"
done
say "3 servers on 127.0.0.1:$server_1, :$server_2, :$server_3"

# haproxy checks /readyz with the admin's client certificate
kc="$DATA/server-1/admin.kubeconfig"
{
	awk '/client-certificate-data:/ {print $2}' "$kc" | base64 -d
	awk '/client-key-data:/ {print $2}' "$kc" | base64 -d
} >"$DATA/haproxy-health.pem"
chmod 600 "$DATA/haproxy-health.pem"
cat >"$DATA/haproxy.cfg" <<EOF
global
	log stderr format short local0 info
defaults
	mode tcp
	log global
	timeout connect 2s
	timeout client 1h
	timeout server 1h
	timeout check 2s
	option redispatch
frontend apiserver
	bind $SUBNET.1:6443
	default_backend apiservers
backend apiservers
	balance roundrobin
	option httpchk
	http-check connect ssl
	http-check send meth GET uri /readyz
	http-check expect status 200
	default-server inter 1s fall 2 rise 1 check verify required ca-file $DATA/server-1/pki/ca.crt crt $DATA/haproxy-health.pem
	server server-1 127.0.0.1:$server_1
	server server-2 127.0.0.1:$server_2
	server server-3 127.0.0.1:$server_3
EOF
bg "$DATA/haproxy.log" haproxy -db -f "$DATA/haproxy.cfg"
sed "s#server: https://.*#server: https://$SUBNET.1:6443#" "$kc" >"$DATA/admin.kubeconfig"
waitfor "the balancer" kubectl --kubeconfig "$DATA/admin.kubeconfig" get --raw /readyz
say "haproxy on https://$SUBNET.1:6443"

for i in 1 2 3; do
	ns=orkit-ha-$i
	ip netns add "$ns"
	ip link add "orkitha0-$i" type veth peer name eth0 netns "$ns"
	ip link set "orkitha0-$i" master "$BR" up
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$SUBNET.1$i/24" dev eth0
	ip -n "$ns" link set eth0 up
	bg "$DATA/node-$i.log" nsenter --net="/run/netns/$ns" -- "$DATA/minicluster" --role agent --data-dir "$DATA/node-$i" \
		--server "https://$SUBNET.1:6443" --node-name "node-$i" --node-ip "$SUBNET.1$i" \
		--token-file "$DATA/server-1/join-token" --ca-cert-file "$DATA/server-1/pki/ca.crt"
done
for i in 1 2 3; do
	waitfor "node-$i Ready" sh -c "kubectl --kubeconfig '$DATA/admin.kubeconfig' get node node-$i -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
done
say "3 agents Ready, each in its own network namespace (orkit-ha-1..3 at $SUBNET.11-13)"
printf '\n  export KUBECONFIG=%s\n  kubectl get nodes -o wide\n\nLogs in %s/*.log. Press Ctrl-C to stop.\n' "$DATA/admin.kubeconfig" "$DATA"
wait -n "${pids[@]}" || true
say "a process ended (see the logs in $DATA)"
