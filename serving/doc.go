// Package serving holds the protections every server orkit runs applies
// to its connections: read-header and idle timeouts, a header size limit,
// and a cap on the connections one client address may hold before any of
// them has authenticated, so a client that opens thousands of idle
// keep-alive connections cannot exhaust a server's file descriptors or
// memory while authenticated clients keep being served.
//
//	ln, _ := net.Listen("tcp", addr)
//	g := serving.NewGuard(ln, limits)          // per-client cap
//	srv := limits.HTTPServer(handler, tlsCfg)  // timeouts, header limit
//	g.Attach(srv)                             // connection states, for the cap
//	go srv.ServeTLS(g, "", "")
//
// The handler calls serving.Authenticated(r.Context()) once a request on
// the connection has authenticated; from then on the connection no longer
// counts against its client's cap. The API server, the kubelet's endpoint
// and the cluster DNS server's TCP listener use it.
package serving
