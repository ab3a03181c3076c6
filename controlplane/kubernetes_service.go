package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"reflect"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// The kubernetes Service: in the default namespace, the first address of
// the service range, port 443 named https, its endpoints the address the
// API server is advertised at (kube-apiserver's master endpoint
// reconciler).
const (
	MasterServiceName      = "kubernetes"
	MasterServiceNamespace = "default"
	masterServicePort      = 443
	masterPortName         = "https"
	masterReconcileEvery   = 10 * time.Second
)

// MasterServiceIP is the cluster IP of the kubernetes Service: the first
// host of the default service range (10.96.0.0/12).
var MasterServiceIP = netip.MustParseAddr("10.96.0.1")

// masterReconciler keeps the kubernetes Service, its Endpoints, its
// EndpointSlice and the default ServiceCIDR as they should be, every
// masterReconcileEvery, until ctx ends. Owned by the control plane.
type masterReconciler struct {
	c         *client.Client
	advertise netip.AddrPort // invalid: no endpoints
	log       *slog.Logger
}

func (m *masterReconciler) run(ctx context.Context) {
	t := time.NewTicker(masterReconcileEvery)
	defer t.Stop()
	for {
		if err := m.reconcile(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("kubernetes service", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reconcile creates the Service and the default ServiceCIDR if they are
// missing (marking the ServiceCIDR Ready) and writes the endpoints when
// they differ.
func (m *masterReconciler) reconcile(ctx context.Context) error {
	port := int32(masterServicePort)
	if m.advertise.IsValid() {
		port = int32(m.advertise.Port())
	}
	svc := &core.Service{
		ObjectMeta: meta.ObjectMeta{Name: MasterServiceName, Namespace: MasterServiceNamespace,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: core.ServiceSpec{Type: core.ServiceTypeClusterIP, ClusterIP: MasterServiceIP.String(),
			Ports: []core.ServicePort{{Name: masterPortName, Port: masterServicePort, Protocol: core.ProtocolTCP,
				TargetPort: meta.FromInt(port)}}},
	}
	svcs := client.For[core.Service](m.c, MasterServiceNamespace)
	// Get first: a create of the existing Service would fail on its
	// cluster IP (allocated) before the name.
	if _, err := svcs.Get(ctx, MasterServiceName); apierrors.IsNotFound(err) {
		if _, err := svcs.Create(ctx, svc); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create service: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("get service: %w", err)
	}
	if err := ensureDefaultServiceCIDR(ctx, m.c, defaultServiceCIDRs); err != nil {
		return err
	}
	if !m.advertise.IsValid() {
		return nil
	}
	ip, proto, name := m.advertise.Addr().String(), core.ProtocolTCP, masterPortName
	ep := &core.Endpoints{ObjectMeta: meta.ObjectMeta{Name: MasterServiceName, Namespace: MasterServiceNamespace,
		Labels: map[string]string{discovery.LabelSkipMirror: "true"}},
		Subsets: []core.EndpointSubset{{Addresses: []core.EndpointAddress{{IP: ip}},
			Ports: []core.EndpointPort{{Name: name, Port: port, Protocol: proto}}}}}
	if err := apply(ctx, client.For[core.Endpoints](m.c, MasterServiceNamespace), ep, func(cur, want *core.Endpoints) bool {
		return reflect.DeepEqual(cur.Subsets, want.Subsets)
	}, func(cur, want *core.Endpoints) { cur.Subsets = want.Subsets }); err != nil {
		return fmt.Errorf("endpoints: %w", err)
	}
	ready := true
	typ := discovery.AddressTypeIPv4
	if m.advertise.Addr().Is6() {
		typ = discovery.AddressTypeIPv6
	}
	slice := &discovery.EndpointSlice{ObjectMeta: meta.ObjectMeta{Name: MasterServiceName, Namespace: MasterServiceNamespace,
		Labels: map[string]string{discovery.LabelServiceName: MasterServiceName, discovery.LabelManagedBy: "orkit-apiserver"}},
		AddressType: typ,
		Endpoints:   []discovery.Endpoint{{Addresses: []string{ip}, Conditions: discovery.EndpointConditions{Ready: &ready}}},
		Ports:       []discovery.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}}}
	if err := apply(ctx, client.For[discovery.EndpointSlice](m.c, MasterServiceNamespace), slice, func(cur, want *discovery.EndpointSlice) bool {
		return reflect.DeepEqual(cur.Endpoints, want.Endpoints) && reflect.DeepEqual(cur.Ports, want.Ports)
	}, func(cur, want *discovery.EndpointSlice) { cur.Endpoints, cur.Ports = want.Endpoints, want.Ports }); err != nil {
		return fmt.Errorf("endpointslice: %w", err)
	}
	return nil
}

// apply creates want, or updates the stored object when same says it
// differs (copying what matters with set).
func apply[T any, PT interface {
	*T
	meta.Object
}](ctx context.Context, r *client.Resource[T, PT], want PT, same func(cur, want PT) bool, set func(cur, want PT)) error {
	cur, err := r.Get(ctx, want.GetObjectMeta().Name)
	if apierrors.IsNotFound(err) {
		_, err = r.Create(ctx, want)
		return err
	}
	if err != nil || same(cur, want) {
		return err
	}
	set(cur, want)
	_, err = r.Update(ctx, cur)
	return err
}

// relay accepts connections on ln and copies each both ways to target
// (the API server's own listener), so the API server is reachable at an
// address it does not listen on (the advertise address on the pod
// network's side of the node). It returns when ln is closed; the copies
// it started end with their connections, which are closed when ctx ends.
func relay(ctx context.Context, ln net.Listener, target string, log *slog.Logger) {
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	conns := map[net.Conn]struct{}{}
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			c.Close()
		}
	})
	defer stop()
	for {
		in, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Warn("kubernetes service relay", "err", err)
			}
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, "tcp", target)
			if err != nil {
				in.Close()
				return
			}
			mu.Lock()
			conns[in], conns[out] = struct{}{}, struct{}{}
			mu.Unlock()
			pipe(in, out)
			mu.Lock()
			delete(conns, in)
			delete(conns, out)
			mu.Unlock()
		}()
	}
}

// pipe copies a and b both ways until both directions end.
func pipe(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(b, a)
		if tc, ok := b.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		close(done)
	}()
	io.Copy(a, b)
	if tc, ok := a.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	<-done
	a.Close()
	b.Close()
}

// listenFreebind listens on addr with IP_FREEBIND: the address need not
// exist yet (a pod network bridge that the first pod's network setup
// creates); connections arrive once it does.
func listenFreebind(ctx context.Context, addr string) (net.Listener, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_FREEBIND, 1)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	return lc.Listen(ctx, "tcp", addr)
}

// startMasterService starts the kubernetes Service reconciler and, when
// the advertise address is not the listen address, the relay from it.
// Both belong to ctx.
func (cp *ControlPlane) startMasterService(ctx context.Context, cfg Config) error {
	var adv netip.AddrPort
	if cfg.AdvertiseAddress != "" {
		adv = netip.MustParseAddrPort(cfg.AdvertiseAddress) // checked by setDefaults
		if cfg.AdvertiseAddress != cfg.Listen {
			ln, err := listenFreebind(ctx, cfg.AdvertiseAddress)
			if err != nil {
				return fmt.Errorf("controlplane: advertise address: %w", err)
			}
			// Port 0 picked a free port.
			adv = netip.AddrPortFrom(adv.Addr(), uint16(ln.Addr().(*net.TCPAddr).Port))
			go relay(ctx, ln, cp.Server.Addr().String(), cfg.Logger)
		}
	}
	ccfg, err := cp.ClientConfig("system:apiserver", "system:masters")
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	c, err := client.New(ccfg)
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	m := &masterReconciler{c: c, advertise: adv, log: cfg.Logger}
	if err := m.reconcile(ctx); err != nil {
		return fmt.Errorf("controlplane: kubernetes service: %w", err)
	}
	go m.run(ctx)
	return nil
}
