package apiserver

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/orkit/orkit/api/admissionregistration"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
)

// initializerSet fills metadata.initializers.pending on create from the
// InitializerConfiguration objects, read from their watch cache.
type initializerSet struct {
	configs *WatchCache
}

// enableInitializers turns on initializers (Config.Initializers): the
// InitializerConfiguration resource must be registered.
func (s *Server) enableInitializers() error {
	gvr := meta.GroupVersionResource{Group: admissionregistration.GroupName, Version: admissionregistration.Version, Resource: "initializerconfigurations"}
	c, ok := s.Cache(gvr)
	if !ok {
		return fmt.Errorf("apiserver: %v is not registered", gvr)
	}
	s.initializers = &initializerSet{configs: c}
	return nil
}

// fillPending sets the pending initializers of a new object: every
// initializer whose rules match the resource, configurations in name order.
func (is *initializerSet) fillPending(res *served, obj meta.Object) {
	objs, _ := is.configs.List("", Filter{IncludeUninitialized: true})
	sort.Slice(objs, func(i, j int) bool { return objs[i].key < objs[j].key })
	gvr := res.Type.GroupVersionResource()
	var pending []meta.Initializer
	seen := map[string]bool{}
	for _, o := range objs {
		cfg, ok := o.object().(*admissionregistration.InitializerConfiguration)
		if !ok {
			continue
		}
		for _, in := range cfg.Initializers {
			if in.Matches(gvr.Group, gvr.Version, gvr.Resource) && !seen[in.Name] {
				seen[in.Name] = true
				pending = append(pending, meta.Initializer{Name: in.Name})
			}
		}
	}
	if len(pending) > 0 {
		m := obj.GetObjectMeta()
		m.Initializers = &meta.Initializers{Pending: pending}
	}
}

// initializationTimeout bounds how long a create waits for initializers.
const initializationTimeout = 30 * time.Second

// waitInitialized blocks a create until every initializer has acted,
// returning the initialized object, or the failure an initializer recorded
// (the object is then deleted), as Kubernetes did for initializers.
func (s *Server) waitInitialized(ctx context.Context, res *served, obj meta.Object) (meta.Object, error) {
	m := obj.GetObjectMeta()
	rv := parseRV(m.ResourceVersion)
	ctx, cancel := context.WithTimeout(ctx, initializationTimeout)
	defer cancel()
	f := Filter{IncludeUninitialized: true}
	initial, w, err := res.cache.Watch(m.Namespace, f, rv-1, false, 100)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	defer res.cache.Unwatch(w)
	check := func(ev WatchEvent) (meta.Object, bool, error) {
		if ev.Object == nil || ev.Object.object().GetObjectMeta().UID != m.UID {
			return nil, false, nil
		}
		cur := ev.Object.object().GetObjectMeta()
		if r := cur.Initializers; r != nil && r.Result != nil && r.Result.Status == meta.StatusFailure {
			return nil, true, r.Result
		}
		if ev.Type == meta.Deleted {
			return nil, true, apierrors.NewNotFound(res.gr(), m.Name)
		}
		if cur.IsInitialized() {
			return ev.Object.object(), true, nil
		}
		return nil, false, nil
	}
	for _, ev := range initial {
		if out, done, err := check(ev); done {
			return out, err
		}
	}
	for {
		select {
		case <-ctx.Done():
			return nil, apierrors.NewTimeout(fmt.Sprintf("timed out waiting for the initialization of %s %q", res.gr(), m.Name))
		case <-w.done:
			return nil, apierrors.NewTimeout(fmt.Sprintf("watch ended while waiting for the initialization of %s %q", res.gr(), m.Name))
		case ev := <-w.ch:
			if out, done, err := check(ev); done {
				return out, err
			}
		}
	}
}

// afterUpdate deletes an object whose initializer recorded a failure.
func (s *Server) afterUpdate(ctx context.Context, res *served, obj meta.Object) {
	m := obj.GetObjectMeta()
	if m.Initializers == nil || m.Initializers.Result == nil || m.Initializers.Result.Status != meta.StatusFailure {
		return
	}
	if _, err := res.storage.Delete(ctx, m.Namespace, m.Name, m.ResourceVersion); err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("apiserver: delete object failed by its initializer", "resource", res.gr().String(), "name", m.Name, "err", err)
	}
}

func parseRV(s string) int64 {
	var n int64
	fmt.Sscan(s, &n)
	return n
}
