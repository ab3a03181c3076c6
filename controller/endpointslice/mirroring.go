package endpointslice

import (
	"context"
	"errors"
	"maps"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
)

// MirroringControllerName is the managed-by value of the slices the
// mirroring controller keeps, as Kubernetes names it.
const MirroringControllerName = "endpointslicemirroring-controller.k8s.io"

// Mirroring copies the Endpoints of Services without a selector into
// EndpointSlices, so that consumers of slices see endpoints a user wrote
// by hand. It is a *controller.Controller (add it to its Manager, or Run
// it). Make one with NewMirroring; safe for concurrent use.
type Mirroring struct {
	*controller.Controller
	client    *client.Client
	cfg       Config
	services  informer.Lister[*core.Service]
	endpoints informer.Lister[*core.Endpoints]
	slices    informer.Lister[*discovery.EndpointSlice]
}

var _ controller.Reconciler = (*Mirroring)(nil)

// NewMirroring makes the mirroring controller over m's shared informers
// of Services, Endpoints and EndpointSlices; it fails as New does.
func NewMirroring(m *controller.Manager, cfg Config) (*Mirroring, error) {
	cfg, err := cfg.withDefaults(m)
	if err != nil {
		return nil, err
	}
	svcInf, err := controller.InformerFor[core.Service](m, "")
	if err != nil {
		return nil, err
	}
	epInf, err := controller.InformerFor[core.Endpoints](m, "")
	if err != nil {
		return nil, err
	}
	sliceInf, err := controller.InformerFor[discovery.EndpointSlice](m, "")
	if err != nil {
		return nil, err
	}
	r := &Mirroring{client: m.Client(), cfg: cfg, services: svcInf.Lister(), endpoints: epInf.Lister(), slices: sliceInf.Lister()}
	c, err := controller.New("endpointslicemirroring", r, controller.Config{Workers: cfg.Workers, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	controller.WatchObjects(c, svcInf)
	controller.WatchObjects(c, epInf)
	controller.Watch(c, sliceInf, sliceService(MirroringControllerName))
	r.Controller = c
	return r, nil
}

// Reconcile mirrors the Endpoints of one Service: only while the Service
// exists without a selector and the Endpoints do not ask to be skipped;
// otherwise the mirrored slices are deleted.
func (r *Mirroring) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	have := managed(r.slices, req.Namespace, req.Name, MirroringControllerName)
	svc, err := r.services.Namespace(req.Namespace).Get(req.Name)
	if err != nil && !errors.Is(err, informer.ErrNotFound) {
		return controller.Result{}, err
	}
	ep, epErr := r.endpoints.Namespace(req.Namespace).Get(req.Name)
	if epErr != nil && !errors.Is(epErr, informer.ErrNotFound) {
		return controller.Result{}, epErr
	}
	if err != nil || epErr != nil || svc.DeletionTimestamp != nil || svc.Spec.Selector != nil ||
		ep.Labels[discovery.LabelSkipMirror] == "true" {
		return controller.Result{}, deleteAll(ctx, r.client, req.Namespace, have)
	}
	lbls := maps.Clone(ep.Labels)
	delete(lbls, discovery.LabelSkipMirror)
	t := target{namespace: ep.Namespace, service: ep.Name, managedBy: MirroringControllerName, labels: lbls,
		owner: endpointsOwner(ep), maxPerSlice: r.cfg.MaxEndpointsPerSlice}
	return controller.Result{}, sync(ctx, r.client, t, mirrorGroups(ep), have)
}

// endpointsOwner is the controller reference of mirrored slices: the
// Endpoints object they copy.
func endpointsOwner(ep *core.Endpoints) meta.OwnerReference {
	yes := true
	return meta.OwnerReference{APIVersion: "v1", Kind: "Endpoints", Name: ep.Name, UID: ep.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}
