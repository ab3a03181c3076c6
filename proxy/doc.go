// Package proxy is the service proxy of a node: it watches Services and
// EndpointSlices and programs nftables so that traffic to a Service reaches one
// of its ready pods.
//
//	Services, EndpointSlices ──watch──▶ Cache ──changed──▶ Proxy.sync
//	    Render (pure): Ruleset {chains, sets, map elements} per Service port
//	    Diff(applied, wanted) ──▶ one nft transaction (the whole Script at start)
//
// Everything lives in the table "ip orkit-proxy":
//
//	nat-prerouting, nat-output (dstnat) ──▶ services
//	    ip daddr . l4proto . dport  vmap @service-ips       ──▶ svc-<h>
//	    local daddr . l4proto . dport vmap @service-nodeports ──▶ ext-<h> (mark) ──▶ svc-<h>
//	svc-<h>: [ip saddr @aff-<h> goto ep-<h>]  numgen random mod N vmap { i : goto ep-<h,i> }
//	ep-<h,i>: mark if the client is the endpoint (hairpin); [update @aff]; dnat to ip:port
//	nat-postrouting (srcnat): marked ──▶ masquerade
//
// Chain and set names are hashes of the namespace, name, port and endpoint,
// so an unchanged piece keeps its name and an update rewrites only the
// chains and map elements that changed. A Service port without ready
// endpoints has no map element: the filter-output and filter-forward
// chains reject what still goes to the service CIDR after dstnat
// (Config.ServiceCIDRs), so clients fail at once; the host guard routes
// that CIDR to a local dummy device, so nothing to it leaves the host and
// the host's own processes reach cluster IPs as pods do.
//
// Run removes the table at start and on a clean exit. Where nft is not
// installed the proxy falls back to IPTables: the same model rendered as
// iptables-restore input (statistic random probabilities instead of numgen,
// the recent match for affinity), rewritten whole on every sync.
package proxy
