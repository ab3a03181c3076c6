// Package dns is the cluster DNS server: a small authoritative server for
// the cluster domain built from the Services and EndpointSlices it watches.
//
//	Services, EndpointSlices ──watch──▶ proxy.Cache ──changed──▶ Build ──▶ Zone (atomic swap)
//	UDP/TCP query ─┬─ the zone owns the name ──▶ Answer(zone, msg): A, AAAA, SRV, PTR, CNAME; NXDOMAIN
//	               └─ other names ──▶ forwarder ──▶ upstreams in turn (2 s each) ──▶ answer as is, or SERVFAIL
//
// Names: <svc>.<ns>.svc.<domain> (the cluster IP, or a headless Service's
// ready endpoints), <hostname>.<svc>.<ns>.svc.<domain> for endpoints with a
// hostname (StatefulSet pods: web-0.web.default.svc.cluster.local),
// _<port>._<proto>.<svc>.<ns>.svc.<domain> SRV records, and PTR records for
// cluster IPs and endpoint hostnames; an ExternalName Service's name is a
// CNAME of its external name (with the target's records when the target is
// a cluster name; an outside target is the client's to resolve, where
// CoreDNS would resolve it upstream too). Names outside the cluster domain (and
// reverse names of addresses the cluster does not know) are forwarded to
// the node's upstream resolvers, the nameservers of Config.ResolvConf (as
// CoreDNS's "forward . /etc/resolv.conf"), skipping this server itself:
// the first answer comes back as it is (NXDOMAIN and SERVFAIL included);
// none within Config.ForwardTimeout is SERVFAIL.
package dns
