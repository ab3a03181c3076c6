package apiserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
)

var storeListAll = store.ListOptions{}

// AdmissionSources gives the built-in admission plugins (built by
// Config.Admission) and the initializer runner their view of the cluster: watch caches for lookups,
// storage for the reads and compare-and-swap writes that must be exact.
type AdmissionSources struct{ s *Server }

// AdmissionSources returns the sources for this server.
func (s *Server) AdmissionSources() AdmissionSources { return AdmissionSources{s} }

var (
	_ admission.NamespaceGetter       = AdmissionSources{}
	_ admission.LimitRangeLister      = AdmissionSources{}
	_ admission.QuotaStore            = AdmissionSources{}
	_ admission.ObjectSource          = AdmissionSources{}
	_ admission.NodeGetter            = AdmissionSources{}
	_ admission.PodCertificateSources = AdmissionSources{}
)

// GetPod reads a Pod from storage; a missing one is a NotFound Status.
func (a AdmissionSources) GetPod(ctx context.Context, ns, name string) (*core.Pod, error) {
	return storageGet[core.Pod](ctx, a.s, coreGVR("pods"), ns, name)
}

// GetServiceAccount reads a ServiceAccount from storage; a missing one
// is a NotFound Status.
func (a AdmissionSources) GetServiceAccount(ctx context.Context, ns, name string) (*core.ServiceAccount, error) {
	return storageGet[core.ServiceAccount](ctx, a.s, coreGVR("serviceaccounts"), ns, name)
}

// storageGet reads one object of gvr from storage.
func storageGet[T any](ctx context.Context, s *Server, gvr meta.GroupVersionResource, ns, name string) (*T, error) {
	st, ok := s.Storage(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(meta.GroupResource{Group: gvr.Group, Resource: gvr.Resource}, name)
	}
	obj, err := st.Get(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	out, ok := any(obj).(*T)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("%s %q is a %T", gvr.Resource, name, obj))
	}
	return out, nil
}

// GetNamespace reads a namespace from the watch cache.
func (a AdmissionSources) GetNamespace(name string) (*core.Namespace, bool) {
	ns, err := get[core.Namespace](a.s, coreGVR("namespaces"), "", name)
	return ns, err == nil
}

// LookupNamespace reads a namespace from storage (for one the cache has not
// seen yet).
func (a AdmissionSources) LookupNamespace(ctx context.Context, name string) (*core.Namespace, error) {
	st, ok := a.s.Storage(coreGVR("namespaces"))
	if !ok {
		return nil, fmt.Errorf("namespaces are not served")
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*core.Namespace), nil
}

// GetNode reads a Node from storage (a mirror pod's owner may have been
// registered a moment ago); a missing one is a NotFound Status.
func (a AdmissionSources) GetNode(ctx context.Context, name string) (*core.Node, error) {
	st, ok := a.s.Storage(coreGVR("nodes"))
	if !ok {
		return nil, apierrors.NewNotFound(meta.GroupResource{Resource: "nodes"}, name)
	}
	obj, err := st.Get(ctx, "", name)
	if err != nil {
		return nil, err
	}
	n, ok := obj.(*core.Node)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("node %q is a %T", name, obj))
	}
	return n, nil
}

// LimitRanges lists the namespace's LimitRanges from the watch cache.
func (a AdmissionSources) LimitRanges(ns string) []*core.LimitRange {
	return list[core.LimitRange](a.s, coreGVR("limitranges"), ns)
}

// List reads the namespace's ResourceQuotas from storage, so a charge
// always starts from the latest usage.
func (a AdmissionSources) List(ctx context.Context, ns string) ([]*core.ResourceQuota, error) {
	st, ok := a.s.Storage(coreGVR("resourcequotas"))
	if !ok {
		return nil, nil
	}
	res, err := st.ListRaw(ctx, ns, storeListAll)
	if err != nil {
		return nil, err
	}
	out := make([]*core.ResourceQuota, 0, len(res.KVs))
	for _, kv := range res.KVs {
		obj, err := st.Decode(kv)
		if err != nil {
			return nil, st.apiError(err, nameFromKey(kv.Key))
		}
		out = append(out, obj.(*core.ResourceQuota))
	}
	return out, nil
}

// UpdateStatus writes q's status if q's resourceVersion is still current
// (a Conflict otherwise).
func (a AdmissionSources) UpdateStatus(ctx context.Context, q *core.ResourceQuota) (*core.ResourceQuota, error) {
	st, ok := a.s.Storage(coreGVR("resourcequotas"))
	if !ok {
		return nil, fmt.Errorf("resourcequotas are not served")
	}
	out, err := st.GuaranteedUpdate(ctx, q.Namespace, q.Name, false, func(cur meta.Object) (meta.Object, error) {
		c := cur.(*core.ResourceQuota)
		if c.ResourceVersion != q.ResourceVersion {
			return nil, apierrors.NewConflict(st.gr, q.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		}
		next := meta.DeepCopy(c)
		next.Status = q.Status
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return out.(*core.ResourceQuota), nil
}

// Watch follows the objects of gvr (uninitialized ones included when
// asked) until ctx is done, starting with the current ones.
func (a AdmissionSources) Watch(ctx context.Context, gvr meta.GroupVersionResource, includeUninitialized bool) (<-chan admission.ObjectEvent, error) {
	res, ok := a.s.lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	initial, w, err := res.cache.Watch("", Filter{IncludeUninitialized: includeUninitialized}, 0, false, 0)
	if err != nil {
		return nil, err
	}
	out := make(chan admission.ObjectEvent)
	go func() {
		defer close(out)
		defer res.cache.Unwatch(w)
		send := func(ev WatchEvent) bool {
			select {
			case out <- admission.ObjectEvent{Type: ev.Type, Object: ev.Object.object()}:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, ev := range initial {
			if !send(ev) {
				return
			}
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.done:
				return
			case ev := <-w.ch:
				if ev.Object != nil && !send(ev) {
					return
				}
			}
		}
	}()
	return out, nil
}

// Get reads an object from storage, initialized or not.
func (a AdmissionSources) Get(ctx context.Context, gvr meta.GroupVersionResource, ns, name string) (meta.Object, error) {
	st, ok := a.s.Storage(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return st.Get(ctx, ns, name)
}

// Update writes obj if its resourceVersion is still current, then deletes
// it if an initializer recorded a failure.
func (a AdmissionSources) Update(ctx context.Context, gvr meta.GroupVersionResource, obj meta.Object) (meta.Object, error) {
	res, ok := a.s.lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), obj.GetObjectMeta().Name)
	}
	m := obj.GetObjectMeta()
	out, err := res.storage.GuaranteedUpdate(ctx, m.Namespace, m.Name, false, func(cur meta.Object) (meta.Object, error) {
		if cur.GetObjectMeta().ResourceVersion != m.ResourceVersion {
			return nil, apierrors.NewConflict(res.gr(), m.Name, fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
		}
		next := meta.DeepCopy(obj)
		if in := next.GetObjectMeta().Initializers; in != nil && len(in.Pending) == 0 && in.Result == nil {
			next.GetObjectMeta().Initializers = nil
		}
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	a.s.afterUpdate(ctx, res, out)
	return out, nil
}

var _ admission.ServiceResolver = AdmissionSources{}

// ResolveService implements admission.ServiceResolver for webhooks
// reached through a Service: a ready endpoint of the Service port from
// its EndpointSlices (so the API server needs no service proxy on its
// host, as kube-apiserver with --enable-aggregator-routing), else the
// Service's ClusterIP and port (kube-apiserver's default). The Service is
// read from the watch cache, its slices from storage.
func (a AdmissionSources) ResolveService(ctx context.Context, namespace, name string, port int32) (string, error) {
	svc, err := get[core.Service](a.s, coreGVR("services"), namespace, name)
	if err != nil {
		return "", fmt.Errorf("service %q not found", namespace+"/"+name)
	}
	var sp *core.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		return "", fmt.Errorf("no service port %d found for service %q", port, name)
	}
	slices, err := a.s.serviceSlices(ctx, svc)
	if err != nil {
		return "", err
	}
	var candidates []string
	for _, sl := range slices {
		for _, p := range sl.Ports {
			if p.Port == nil || p.NameValue() != sp.Name {
				continue
			}
			for _, e := range sl.Endpoints {
				if len(e.Addresses) > 0 && e.IsReady() {
					candidates = append(candidates, net.JoinHostPort(e.Addresses[0], strconv.Itoa(int(*p.Port))))
				}
			}
		}
	}
	if len(candidates) > 0 {
		return candidates[rand.IntN(len(candidates))], nil
	}
	if ip := svc.Spec.ClusterIP; ip != "" && ip != "None" {
		return net.JoinHostPort(ip, strconv.Itoa(int(port))), nil
	}
	return "", fmt.Errorf("no endpoints available for service %q", name)
}

var _ admission.ParamSource = AdmissionSources{}

// ListByKind implements admission.ParamSource from the watch cache of the
// resource serving apiVersion/kind (custom resources included).
func (a AdmissionSources) ListByKind(_ context.Context, apiVersion, kind, namespace string) ([]meta.Object, bool, error) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	want := meta.GroupVersionKind{Group: group, Version: version, Kind: kind}
	a.s.mu.RLock()
	var res *served
	for _, r := range a.s.resources {
		if r.Type.Kind == want {
			res = r
			break
		}
	}
	a.s.mu.RUnlock()
	if res == nil || res.cache == nil {
		return nil, false, apierrors.NewNotFound(meta.GroupResource{Group: group, Resource: strings.ToLower(kind)}, "")
	}
	objs, _ := res.cache.List(namespace, Filter{})
	out := make([]meta.Object, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.object())
	}
	return out, res.Type.Namespaced, nil
}
