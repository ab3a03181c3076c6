// Package dns is the cluster DNS server: a small authoritative server for
// the cluster domain built from the Services and Endpoints it watches.
//
//	Services, Endpoints ──watch──▶ proxy.Cache ──changed──▶ Build ──▶ Zone (atomic swap)
//	UDP/TCP query ──▶ Answer(zone, msg): A, AAAA, SRV, PTR; NXDOMAIN for unknown names
//
// Names: <svc>.<ns>.svc.<domain> (the cluster IP, or a headless Service's
// ready endpoints), <hostname>.<svc>.<ns>.svc.<domain> for endpoints with a
// hostname (StatefulSet pods: web-0.web.default.svc.cluster.local),
// _<port>._<proto>.<svc>.<ns>.svc.<domain> SRV records, and PTR records for
// cluster IPs and endpoint hostnames. Nothing is forwarded: no upstream is
// reachable from a test cluster, so names outside the zone get NXDOMAIN.
package dns
