package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os/exec"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/proxy/dns"
)

// clusterDNSIP is the Service address pods use for DNS (kube-dns).
var clusterDNSIP = netip.MustParseAddr("10.96.0.10")

// ensureBridge makes a node's bridge with its gateway address before the
// first pod (the CNI bridge plugin adopts it), so cluster DNS can listen on
// the gateway from the start.
func ensureBridge(name string, subnet netip.Prefix) (netip.Addr, error) {
	gw := subnet.Addr().Next()
	cmds := [][]string{
		{"ip", "link", "add", name, "type", "bridge"},
		{"ip", "addr", "replace", netip.PrefixFrom(gw, subnet.Bits()).String(), "dev", name},
		{"ip", "link", "set", name, "up"},
	}
	for i, c := range cmds {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil && i > 0 {
			return gw, fmt.Errorf("%v: %v: %s", c, err, out)
		}
	}
	return gw, nil
}

// startDNS runs the cluster DNS server on the gateway of the first real
// node and publishes it as Service kube-system/kube-dns at clusterDNSIP,
// which the service proxy forwards to it.
func (c *cluster) startDNS(ctx context.Context, gw netip.Addr) error {
	srv, err := dns.New(dns.Config{Client: c.admin, Listen: net.JoinHostPort(gw.String(), "53"), ResolvConf: c.opts.ResolvConf,
		Logger: c.opts.Logger})
	if err != nil {
		return err
	}
	stopped := make(chan error, 1)
	c.goRun("cluster DNS", func() error {
		err := srv.Run(ctx)
		stopped <- err
		return err
	})
	select {
	case <-srv.Ready():
	case err := <-stopped: // it could not listen (the address is taken), or ctx ended
		if err == nil {
			err = ctx.Err()
		}
		return fmt.Errorf("cluster DNS stopped before it was ready: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
	port := int32(srv.Addr().(*net.UDPAddr).Port)
	svc := &core.Service{ObjectMeta: meta.ObjectMeta{Name: "kube-dns", Namespace: "kube-system", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec: core.ServiceSpec{ClusterIP: clusterDNSIP.String(), Ports: []core.ServicePort{
			{Name: "dns", Port: 53, Protocol: core.ProtocolUDP}, {Name: "dns-tcp", Port: 53, Protocol: core.ProtocolTCP}}}}
	// On a resumed cluster the Service exists: creating it again would be
	// refused for its clusterIP (allocated to itself) before its name.
	svcs := client.For[core.Service](c.admin, "kube-system")
	if _, err := svcs.Get(ctx, "kube-dns"); apierrors.IsNotFound(err) {
		if _, err := svcs.Create(ctx, svc); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create Service kube-dns: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("get Service kube-dns: %w", err)
	}
	eps := client.For[core.Endpoints](c.admin, "kube-system")
	ep := &core.Endpoints{ObjectMeta: meta.ObjectMeta{Name: "kube-dns", Namespace: "kube-system"},
		Subsets: []core.EndpointSubset{{Addresses: []core.EndpointAddress{{IP: gw.String()}},
			Ports: []core.EndpointPort{{Name: "dns", Port: port, Protocol: core.ProtocolUDP}, {Name: "dns-tcp", Port: port, Protocol: core.ProtocolTCP}}}}}
	if _, err := eps.Create(ctx, ep); apierrors.IsAlreadyExists(err) {
		cur, gerr := eps.Get(ctx, "kube-dns")
		if gerr != nil {
			return gerr
		}
		ep.ResourceVersion = cur.ResourceVersion
		_, err = eps.Update(ctx, ep)
	} else if err != nil {
		return fmt.Errorf("create Endpoints kube-dns: %w", err)
	}
	c.step("cluster DNS serving cluster.local on %s:%d, Service kube-system/kube-dns at %s, forwarding other names to %v",
		gw, port, clusterDNSIP, srv.Upstreams())
	return nil
}
