package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/store"
)

// Defaults of ServiceAllocatorConfig.
const (
	DefaultServiceCIDR   = "10.96.0.0/12"
	DefaultNodePortBase  = 30000
	DefaultNodePortSize  = 2768 // 30000–32767
	defaultSweepInterval = time.Minute
	maxServiceHostBits   = 24
	serviceIPRangeKey    = "/registry/ranges/serviceips"
	nodePortRangeKey     = "/registry/ranges/servicenodeports"
)

// ServiceAllocatorConfig configures a ServiceAllocator; the zero value
// means the defaults.
type ServiceAllocatorConfig struct {
	// ServiceCIDR is the range cluster IPs come from; zero means
	// 10.96.0.0/12. At most 2^24 addresses. Its network and broadcast
	// addresses are never used; its first host (.1, the `kubernetes`
	// Service) and its tenth (.10, cluster DNS) are handed out only when
	// requested by name.
	ServiceCIDR netip.Prefix
	// NodePortBase and NodePortSize are the node port range; zero means
	// 30000 and 2768 (30000–32767).
	NodePortBase, NodePortSize int
	// SweepInterval is how often allocations no Service holds are looked
	// for; one found in two sweeps in a row is released. Zero means a
	// minute.
	SweepInterval time.Duration
	// Logger receives repair notes; nil means slog.Default().
	Logger *slog.Logger
}

// ServiceAllocator hands out cluster IPs and node ports to Services. It is
// an admission.Validator (and Releaser) for services: the lead adds it
// last to the validating chain, so it runs after validation and nothing
// after it rejects. Each range is one bitmap object in the store changed
// by compare-and-swap, so there are no duplicates under concurrency, also
// across API servers sharing a store.
//
// Start repairs the bitmaps from the Services that exist, then watches
// Services to release what a deleted or changed Service gave up, and
// sweeps for leaks (an allocation whose create failed without Release).
// Validate blocks until the start-up repair is done. Safe for concurrent
// use; its goroutine stops when Start's ctx is done.
type ServiceAllocator struct {
	svcs     *Storage
	ips      *bitRange
	ports    *bitRange
	prefix   netip.Prefix
	portBase int
	sweep    time.Duration
	log      *slog.Logger
	repaired chan struct{}
}

var (
	_ admission.Validator = (*ServiceAllocator)(nil)
	_ admission.Releaser  = (*ServiceAllocator)(nil)
)

// NewServiceAllocator returns an allocator over srv's services storage
// (register the core scheme first). It fails on a bad configuration.
func NewServiceAllocator(srv *Server, cfg ServiceAllocatorConfig) (*ServiceAllocator, error) {
	svcs, ok := srv.Storage(coreGVR("services"))
	if !ok {
		return nil, errors.New("service allocator: services are not registered")
	}
	if !cfg.ServiceCIDR.IsValid() {
		cfg.ServiceCIDR = netip.MustParsePrefix(DefaultServiceCIDR)
	}
	if cfg.NodePortBase == 0 && cfg.NodePortSize == 0 {
		cfg.NodePortBase, cfg.NodePortSize = DefaultNodePortBase, DefaultNodePortSize
	}
	if cfg.SweepInterval <= 0 {
		cfg.SweepInterval = defaultSweepInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	p := cfg.ServiceCIDR.Masked()
	hostBits := p.Addr().BitLen() - p.Bits()
	if hostBits < 2 || hostBits > maxServiceHostBits {
		return nil, fmt.Errorf("service allocator: service CIDR %s must have 2 to %d host bits", p, maxServiceHostBits)
	}
	if cfg.NodePortBase < 1 || cfg.NodePortSize < 1 || cfg.NodePortBase+cfg.NodePortSize > 65536 {
		return nil, fmt.Errorf("service allocator: node port range %d+%d is not within 1–65535", cfg.NodePortBase, cfg.NodePortSize)
	}
	size := 1 << hostBits
	forbid := map[int]bool{0: true}
	if p.Addr().Is4() {
		forbid[size-1] = true // broadcast
	}
	skip := map[int]bool{1: true}
	if size > 16 {
		skip[10] = true
	}
	return &ServiceAllocator{
		svcs:     svcs,
		ips:      &bitRange{st: svcs.store, key: serviceIPRangeKey, name: p.String(), size: size, skip: skip, forbid: forbid},
		ports:    &bitRange{st: svcs.store, key: nodePortRangeKey, name: fmt.Sprintf("%d-%d", cfg.NodePortBase, cfg.NodePortBase+cfg.NodePortSize-1), size: cfg.NodePortSize},
		prefix:   p,
		portBase: cfg.NodePortBase,
		sweep:    cfg.SweepInterval,
		log:      cfg.Logger,
		repaired: make(chan struct{}),
	}, nil
}

// Name returns "ServiceAllocator".
func (a *ServiceAllocator) Name() string { return "ServiceAllocator" }

// Handles reports true for creates and updates.
func (a *ServiceAllocator) Handles(op admission.Operation) bool {
	return op == admission.Create || op == admission.Update
}

// Validate allocates the cluster IP and node ports of a Service being
// created or updated, writing them into the object. A requested address
// or port that is taken or outside the range is a 422 Invalid error.
func (a *ServiceAllocator) Validate(ctx context.Context, at *admission.Attributes) error {
	svc, ok := at.Object.(*core.Service)
	if !ok || at.Subresource != "" || at.Resource.Resource != "services" {
		return nil
	}
	select {
	case <-a.repaired:
	case <-ctx.Done():
		return ctx.Err()
	}
	old, _ := at.OldObject.(*core.Service)
	if at.DryRun {
		return nil
	}
	ipOff, err := a.allocateIP(ctx, svc, old)
	if err != nil {
		return err
	}
	if err := a.allocatePorts(ctx, svc, old); err != nil {
		if ipOff >= 0 {
			_ = a.ips.release(context.WithoutCancel(ctx), []int{ipOff})
		}
		return err
	}
	return nil
}

// Release frees what Validate allocated for a create that then failed.
func (a *ServiceAllocator) Release(ctx context.Context, at *admission.Attributes) error {
	svc, ok := at.Object.(*core.Service)
	if !ok || at.Operation != admission.Create || at.DryRun {
		return nil
	}
	ips, ports := a.usedBy(svc)
	return errors.Join(a.ips.release(ctx, ips), a.ports.release(ctx, ports))
}

// allocateIP gives svc its cluster IP; it returns the offset it took, or
// -1 when it took none.
func (a *ServiceAllocator) allocateIP(ctx context.Context, svc, old *core.Service) (int, error) {
	spec := &svc.Spec
	if spec.Type == core.ServiceTypeExternalName || spec.ClusterIP == core.ClusterIPNone {
		return -1, nil
	}
	if old != nil && old.Spec.ClusterIP != "" && old.Spec.ClusterIP == spec.ClusterIP {
		return -1, nil // unchanged (immutability is the strategy's check)
	}
	path := field.NewPath("spec", "clusterIP")
	if spec.ClusterIP != "" {
		off, ok := a.ipOffset(spec.ClusterIP)
		if !ok {
			return -1, a.invalid(svc, path, spec.ClusterIP, ErrOutOfRange, a.prefix.String())
		}
		if _, err := a.ips.allocate(ctx, []int{off}, 0); err != nil {
			return -1, a.invalid(svc, path, spec.ClusterIP, err, a.prefix.String())
		}
		return off, nil
	}
	got, err := a.ips.allocate(ctx, nil, 1)
	if err != nil {
		return -1, a.invalid(svc, path, "", err, a.prefix.String())
	}
	ip := a.ipAt(got[0]).String()
	spec.ClusterIP, spec.ClusterIPs = ip, []string{ip}
	if len(spec.IPFamilies) == 0 {
		fam := core.IPv4Protocol
		if a.prefix.Addr().Is6() {
			fam = core.IPv6Protocol
		}
		spec.IPFamilies = []core.IPFamily{fam}
	}
	if spec.IPFamilyPolicy == nil {
		single := core.IPFamilyPolicySingleStack
		spec.IPFamilyPolicy = &single
	}
	return got[0], nil
}

// allocatePorts gives every port of a NodePort (or LoadBalancer) Service
// a node port: the requested one when it is new to this Service, else one
// at random.
func (a *ServiceAllocator) allocatePorts(ctx context.Context, svc, old *core.Service) error {
	if !needsNodePorts(svc) {
		return nil
	}
	have := map[int32]bool{}
	if old != nil && needsNodePorts(old) {
		for _, p := range old.Spec.Ports {
			have[p.NodePort] = true
		}
	}
	var requested []int
	seen := map[int32]bool{}
	missing := 0
	for _, p := range svc.Spec.Ports {
		switch {
		case p.NodePort == 0:
			missing++
		case have[p.NodePort] || seen[p.NodePort]:
		default:
			seen[p.NodePort] = true
			requested = append(requested, int(p.NodePort)-a.portBase)
		}
	}
	path := field.NewPath("spec", "ports").Index(0).Child("nodePort")
	rng := fmt.Sprintf("%d-%d", a.portBase, a.portBase+a.ports.size-1)
	got, err := a.ports.allocate(ctx, requested, missing)
	if err != nil {
		var bad any = ""
		if len(requested) > 0 {
			bad = requested[0] + a.portBase
		}
		return a.invalid(svc, path, bad, err, rng)
	}
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].NodePort == 0 {
			svc.Spec.Ports[i].NodePort = int32(got[0] + a.portBase)
			got = got[1:]
		}
	}
	return nil
}

func needsNodePorts(svc *core.Service) bool {
	switch svc.Spec.Type {
	case core.ServiceTypeNodePort:
		return true
	case core.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

// usedBy returns the IP and port offsets svc holds within the ranges.
func (a *ServiceAllocator) usedBy(svc *core.Service) (ips, ports []int) {
	if svc.Spec.Type != core.ServiceTypeExternalName && svc.Spec.ClusterIP != core.ClusterIPNone {
		if off, ok := a.ipOffset(svc.Spec.ClusterIP); ok {
			ips = append(ips, off)
		}
	}
	if needsNodePorts(svc) {
		for _, p := range svc.Spec.Ports {
			if off := int(p.NodePort) - a.portBase; p.NodePort != 0 && off >= 0 && off < a.ports.size {
				ports = append(ports, off)
			}
		}
	}
	return ips, ports
}

// ipOffset returns s's offset in the service CIDR.
func (a *ServiceAllocator) ipOffset(s string) (int, bool) {
	ip, err := netip.ParseAddr(s)
	if err != nil || !a.prefix.Contains(ip.Unmap()) {
		return 0, false
	}
	b, base := ip.Unmap().As16(), a.prefix.Addr().As16()
	off := 0
	for i := 16 - 4; i < 16; i++ { // at most 24 host bits: the last 4 bytes hold them
		off = off<<8 | int(b[i]-base[i])
	}
	// the subtraction above is bytewise; the prefix is masked, so no byte borrows
	return off, true
}

// ipAt returns the address at offset off of the service CIDR.
func (a *ServiceAllocator) ipAt(off int) netip.Addr {
	b := a.prefix.Addr().As16()
	for i := 15; i >= 12; i-- {
		b[i] |= byte(off)
		off >>= 8
	}
	ip := netip.AddrFrom16(b)
	if a.prefix.Addr().Is4() {
		ip = ip.Unmap()
	}
	return ip
}

// invalid turns an allocation error into a 422 naming the field.
func (a *ServiceAllocator) invalid(svc *core.Service, p *field.Path, value any, err error, rng string) error {
	var fe *field.Error
	switch {
	case errors.Is(err, ErrAllocated):
		fe = field.Invalid(p, value, "provided "+p.String()+" is already allocated")
	case errors.Is(err, ErrOutOfRange):
		fe = field.Invalid(p, value, fmt.Sprintf("provided %s is not in the valid range. The range of valid values is %s", p, rng))
	case errors.Is(err, ErrRangeFull):
		fe = field.Invalid(p, value, fmt.Sprintf("failed to allocate a value: range %s is full", rng))
	default:
		// The allocator's own text names its store key: log it, answer
		// with what failed.
		a.log.Error("service allocator: allocation failed", "service", svc.Namespace+"/"+svc.Name, "field", p.String(), "err", err)
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate %s", p))
	}
	return apierrors.NewInvalid(a.svcs.Type().Kind, svc.Name, field.ErrorList{fe})
}

// isStoreGone reports an error after which the watch cannot go on.
func isStoreGone(err error) bool { return errors.Is(err, store.ErrClosed) }
