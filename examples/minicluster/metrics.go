package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"

	"github.com/orkit/orkit/metricsserver"
)

// startMetricsServer runs the metrics server (as system:metrics-server)
// on a loopback port with a serving certificate of the cluster CA for
// metrics-server.kube-system.svc, and registers it with the API server
// (Service, Endpoints, APIService v1beta1.metrics.k8s.io), so `kubectl
// top` and the HorizontalPodAutoscaler read it through the API server.
// Simulated nodes are scraped in process, real ones through the API
// server's node proxy.
func (c *cluster) startMetricsServer(ctx context.Context) error {
	cl, err := c.clientFor("system:metrics-server", "system:masters")
	if err != nil {
		return err
	}
	kp, err := c.cp.CA.IssueServing("metrics-server", []string{"metrics-server.kube-system.svc"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return err
	}
	scraper := metricsserver.Scraper(metricsserver.NewNodeProxy(cl))
	if c.simPool != nil {
		scraper = metricsserver.FirstOf(c.simPool, scraper)
	}
	ms, err := metricsserver.New(metricsserver.Config{Client: cl, Scraper: scraper, Resolution: c.opts.MetricResolution,
		Cert: &cert, ClientCA: c.cp.FrontProxyCA.Pool(), Logger: c.opts.Logger})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("metrics server: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	c.goRun("metrics server", func() error { return ms.Serve(ctx, ln) })
	c.goRun("metrics scraper", func() error { return ms.Run(ctx) })
	if err := metricsserver.Register(ctx, c.admin, metricsserver.Registration{Namespace: "kube-system", Name: "metrics-server",
		Addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), addr.Port()), CABundle: c.cp.CA.CertPEM}); err != nil {
		return err
	}
	c.step("metrics server started at %s (APIService v1beta1.metrics.k8s.io → kube-system/metrics-server)", addr)
	return nil
}
