package endpointslice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// ControllerName is the managed-by value of the slices the EndpointSlice
// controller keeps, as Kubernetes names it.
const ControllerName = "endpointslice-controller.k8s.io"

// Config configures the EndpointSlice controller (and the mirroring
// controller). The zero value is usable.
type Config struct {
	// Workers reconcile different Services at once; default 5.
	Workers int
	// MaxEndpointsPerSlice caps each slice, as kube-controller-manager's
	// --max-endpoints-per-slice; default 100, at most discovery.MaxEndpoints.
	MaxEndpointsPerSlice int
	// Logger; default the manager's (Manager.Logger).
	Logger *slog.Logger
}

// withDefaults fills the zero fields and checks the others.
func (cfg Config) withDefaults(m *controller.Manager) (Config, error) {
	if m == nil {
		return cfg, fmt.Errorf("%w: no manager", ErrInvalidConfig)
	}
	if cfg.MaxEndpointsPerSlice < 0 || cfg.MaxEndpointsPerSlice > discovery.MaxEndpoints {
		return cfg, fmt.Errorf("%w: MaxEndpointsPerSlice %d not in 1..%d", ErrInvalidConfig, cfg.MaxEndpointsPerSlice, discovery.MaxEndpoints)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 5
	}
	if cfg.MaxEndpointsPerSlice == 0 {
		cfg.MaxEndpointsPerSlice = 100
	}
	if cfg.Logger == nil {
		cfg.Logger = m.Logger()
	}
	return cfg, nil
}

// Controller keeps the EndpointSlices of every Service with a selector.
// It is a *controller.Controller (add it to the Manager it was made on, or
// Run it) reconciling with its own Reconcile. Make one with New; safe for
// concurrent use by the controller's workers.
type Controller struct {
	*controller.Controller
	client   *client.Client
	cfg      Config
	services informer.Lister[*core.Service]
	pods     informer.Lister[*core.Pod]
	slices   informer.Lister[*discovery.EndpointSlice]
}

var _ controller.Reconciler = (*Controller)(nil)

// New makes the EndpointSlice controller over m's shared informers of
// Services, Pods and EndpointSlices, writing through m's client; add it to
// m (m.Add) to run it while m leads, or Run it. It fails with
// ErrInvalidConfig without a manager or with a MaxEndpointsPerSlice out of
// range, and when an informer cannot be made.
func New(m *controller.Manager, cfg Config) (*Controller, error) {
	cfg, err := cfg.withDefaults(m)
	if err != nil {
		return nil, err
	}
	svcInf, err := controller.InformerFor[core.Service](m, "")
	if err != nil {
		return nil, err
	}
	podInf, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		return nil, err
	}
	sliceInf, err := controller.InformerFor[discovery.EndpointSlice](m, "")
	if err != nil {
		return nil, err
	}
	r := &Controller{client: m.Client(), cfg: cfg, services: svcInf.Lister(), pods: podInf.Lister(), slices: sliceInf.Lister()}
	c, err := controller.New("endpointslice", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, svcInf)
	controller.Watch(c, sliceInf, sliceService(ControllerName)) // repair edits of managed slices
	controller.Watch(c, podInf, r.podServices)
	r.Controller = c
	return r, nil
}

// sliceService maps a slice managed by managedBy to its Service.
func sliceService(managedBy string) controller.Mapper[*discovery.EndpointSlice] {
	return func(s *discovery.EndpointSlice) []controller.Request {
		svc := s.Labels[discovery.LabelServiceName]
		if svc == "" || s.Labels[discovery.LabelManagedBy] != managedBy {
			return nil
		}
		return []controller.Request{{Namespace: s.Namespace, Name: svc}}
	}
}

// podServices maps a pod to the Services of its namespace selecting it.
func (r *Controller) podServices(pod *core.Pod) []controller.Request {
	var out []controller.Request
	for _, svc := range r.services.Namespace(pod.Namespace).List(nil) {
		if len(svc.Spec.Selector) > 0 && labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			out = append(out, controller.Request{Namespace: svc.Namespace, Name: svc.Name})
		}
	}
	return out
}

// managed lists the slices of namespace/service that managedBy keeps.
func managed(l informer.Lister[*discovery.EndpointSlice], namespace, service, managedBy string) []*discovery.EndpointSlice {
	return l.Namespace(namespace).List(labels.SelectorFromSet(labels.Set{
		discovery.LabelServiceName: service, discovery.LabelManagedBy: managedBy}))
}

// Reconcile writes the EndpointSlices of one Service; a Service that is
// gone, being deleted or without a selector has none of this controller's.
func (r *Controller) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	have := managed(r.slices, req.Namespace, req.Name, ControllerName)
	svc, err := r.services.Namespace(req.Namespace).Get(req.Name)
	if err != nil && !errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, err
	}
	if err != nil || svc.DeletionTimestamp != nil || len(svc.Spec.Selector) == 0 {
		return controller.Result{}, deleteAll(ctx, r.client, req.Namespace, have)
	}
	want := podGroups(svc, r.pods.Namespace(svc.Namespace).List(labels.SelectorFromSet(svc.Spec.Selector)))
	if len(want) == 0 {
		want = []*group{placeholder(svc)}
	}
	lbls := maps.Clone(svc.Labels)
	if svc.Spec.ClusterIP == core.ClusterIPNone {
		if lbls == nil {
			lbls = map[string]string{}
		}
		lbls["service.kubernetes.io/headless"] = ""
	}
	t := target{namespace: svc.Namespace, service: svc.Name, managedBy: ControllerName, labels: lbls,
		owner: serviceOwner(svc), maxPerSlice: r.cfg.MaxEndpointsPerSlice}
	return controller.Result{}, sync(ctx, r.client, t, want, have)
}

// placeholder is the group of a Service that selects no endpoints: as
// kube-controller-manager does, the Service still gets one slice, empty,
// of its primary address family and with no ports, so clients see that
// the controller has seen it.
func placeholder(svc *core.Service) *group {
	t := discovery.AddressTypeIPv4
	if len(svc.Spec.IPFamilies) > 0 && svc.Spec.IPFamilies[0] == core.IPv6Protocol {
		t = discovery.AddressTypeIPv6
	}
	return &group{addressType: t}
}

// serviceOwner is the controller reference of svc's slices.
func serviceOwner(svc *core.Service) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}
