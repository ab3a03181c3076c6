#!/bin/bash
# internal/bench/apiload/compare-stores.sh (from the repository root, after go build -o /tmp/apiload ./internal/bench/apiload):
# BENCHMARKS.md "etcd against bbolt". Needs etcd (ETCD_BIN) and curl; ports 17448, 23791, 23801.
# ConfigMap creates through the whole chain: bbolt vs single-member etcd, alternating; then watch on etcd.
set -u
B=/tmp/b21; rm -rf $B; mkdir -p $B
ETCD=${ETCD_BIN:-etcd}
start_etcd() {
  rm -rf $B/etcd; mkdir -p $B/etcd
  $ETCD --name m0 --data-dir $B/etcd/data --listen-client-urls http://127.0.0.1:23791 --advertise-client-urls http://127.0.0.1:23791 \
    --listen-peer-urls http://127.0.0.1:23801 --initial-advertise-peer-urls http://127.0.0.1:23801 --initial-cluster m0=http://127.0.0.1:23801 \
    --max-request-bytes 2097152 --log-level warn > $B/etcd/log 2>&1 &
  EPID=$!
  for i in $(seq 50); do curl -sf http://127.0.0.1:23791/health >/dev/null && break; sleep 0.2; done
}
serve() { # $1 = name, rest = extra flags
  local n=$1; shift
  rm -rf $B/$n; mkdir -p $B/$n
  /tmp/apiload -data-dir $B/$n -listen 127.0.0.1:17448 "$@" serve > $B/$n.serve.log 2>&1 &
  SPID=$!
  for i in $(seq 100); do [ -f $B/$n/loader.kubeconfig ] && grep -q serving $B/$n.serve.log && break; sleep 0.2; done
}
stopall() { kill $SPID 2>/dev/null; wait $SPID 2>/dev/null; [ -n "${EPID:-}" ] && kill $EPID 2>/dev/null && wait $EPID 2>/dev/null; EPID=; }
cpu() { awk '{print ($14+$15)/100}' /proc/$1/stat; }
for round in 1 2 3; do
  for st in bbolt etcd; do
    if [ $st = etcd ]; then start_etcd; serve etcd$round -etcd-servers http://127.0.0.1:23791; else serve bbolt$round; fi
    echo "== round $round store $st  $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    c0=$(cpu $SPID); e0=0; [ -n "${EPID:-}" ] && e0=$(cpu $EPID)
    /tmp/apiload -kubeconfig $B/$st$round/loader.kubeconfig -clients 32 -duration 15s creates
    c1=$(cpu $SPID); e1=0; [ -n "${EPID:-}" ] && e1=$(cpu $EPID)
    echo "server cpu s: $(echo "$c1 - $c0" | bc)  etcd cpu s: $(echo "$e1 - $e0" | bc)  load after $(cut -d' ' -f1-3 /proc/loadavg)"
    stopall
  done
done
for round in 1 2; do
  start_etcd; serve etcdw$round -etcd-servers http://127.0.0.1:23791
  echo "== watch etcd round $round $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  /tmp/apiload -kubeconfig $B/etcdw$round/loader.kubeconfig -watchers 100 -updates 500 -interval 20ms watch
  stopall
  serve bboltw$round
  echo "== watch bbolt round $round $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
  /tmp/apiload -kubeconfig $B/bboltw$round/loader.kubeconfig -watchers 100 -updates 500 -interval 20ms watch
  stopall
done
