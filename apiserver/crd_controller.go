package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/orkit/orkit/api/apiextensions"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/store"
)

// crdResync is how often the CRD controller looks again without a change
// to CustomResourceDefinitions: a CRD being deleted waits for its custom
// resources' finalizers, a failed status write is retried.
const crdResync = time.Second

// crdController serves the custom resources of CustomResourceDefinitions,
// as kube-apiserver's naming, establishing and finalizing controllers
// together: it accepts names (NamesAccepted), registers one Resource per
// served version under the accepted names, sets Established, re-registers
// when a CRD changes, and on deletion removes the custom resources, then
// the cleanup finalizer, then stops serving. One goroutine (run) owns it;
// it stops with the server's run context.
type crdController struct {
	s *Server
	// served maps a CRD's name to what is registered for it.
	served map[string]*servedCRD
}

// servedCRD is what the controller registered for one CRD.
type servedCRD struct {
	// key is the CRD's UID, spec and accepted names, as JSON: a change
	// means re-registering.
	key  string
	gvrs []meta.GroupVersionResource
	// terminating refuses creates once the CRD is being deleted.
	terminating atomic.Bool
}

// startCRDs starts the CRD controller when the server serves
// CustomResourceDefinitions (Start calls it).
func (s *Server) startCRDs(ctx context.Context) {
	cache, ok := s.Cache(crdGVR)
	if !ok {
		return
	}
	c := &crdController{s: s, served: map[string]*servedCRD{}}
	go c.run(ctx, cache)
}

// run syncs every CRD on each change to them and every crdResync, until
// ctx ends.
func (c *crdController) run(ctx context.Context, cache *WatchCache) {
	select {
	case <-cache.Synced():
	case <-ctx.Done():
		return
	}
	t := time.NewTicker(crdResync)
	defer t.Stop()
	for ctx.Err() == nil {
		_, w, err := cache.WatchWith("", Filter{IncludeUninitialized: true}, WatchOptions{Start: StartNow})
		if err != nil {
			c.s.log.Error("apiserver: CRD controller cannot watch", "err", err)
			return
		}
		c.sync(ctx, cache)
		c.loop(ctx, cache, w, t.C)
		cache.Unwatch(w)
	}
}

// loop syncs on every event of w and tick until w stops or ctx ends.
func (c *crdController) loop(ctx context.Context, cache *WatchCache, w *cacheWatcher, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.done:
			return
		case <-w.ch:
			for drained := false; !drained; {
				select {
				case <-w.ch:
				default:
					drained = true
				}
			}
		case <-tick:
		}
		c.sync(ctx, cache)
	}
}

// sync brings serving and the CRDs' status in line with the CRDs in the
// cache.
func (c *crdController) sync(ctx context.Context, cache *WatchCache) {
	var crds []*apiextensions.CustomResourceDefinition
	cache.Objects(func(o meta.Object) { crds = append(crds, o.(*apiextensions.CustomResourceDefinition)) })
	// The oldest CRD keeps a contested name, as with kube's naming
	// controller, which handles CRDs in the order they came.
	slices.SortFunc(crds, func(a, b *apiextensions.CustomResourceDefinition) int {
		if d := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
	live := map[string]bool{}
	for _, crd := range crds {
		live[crd.Name] = true
		if crd.DeletionTimestamp != nil {
			c.finalize(ctx, crd)
			continue
		}
		c.syncOne(ctx, crd, crds)
	}
	for name := range c.served {
		if !live[name] {
			c.stopServing(name)
		}
	}
}

// syncOne accepts crd's names, serves it under them and records both in
// its status.
func (c *crdController) syncOne(ctx context.Context, crd *apiextensions.CustomResourceDefinition, all []*apiextensions.CustomResourceDefinition) {
	names, namesCond, est := apiextensions.AcceptNames(crd, all)
	next := meta.DeepCopy(crd)
	next.Status.AcceptedNames = names
	next.SetCondition(namesCond)
	if namesCond.Status == meta.ConditionTrue || c.served[crd.Name] != nil {
		if err := c.serve(next); err != nil {
			c.s.log.Error("apiserver: cannot serve CustomResourceDefinition", "name", crd.Name, "err", err)
			est = apiextensions.CustomResourceDefinitionCondition{Type: apiextensions.Established, Status: meta.ConditionFalse,
				Reason: "Installing", Message: err.Error()}
		} else {
			est = apiextensions.EstablishedCondition()
			if old := crd.Condition(apiextensions.Established); old != nil && old.Status == meta.ConditionTrue {
				est = *old
			}
		}
	}
	next.SetCondition(est)
	if reflect.DeepEqual(next.Status, crd.Status) {
		return
	}
	c.writeStatus(ctx, crd.Name, func(cur *apiextensions.CustomResourceDefinition) {
		cur.Status.AcceptedNames = next.Status.AcceptedNames
		for _, cond := range next.Status.Conditions {
			cur.SetCondition(cond)
		}
	})
}

// serve registers crd's served versions, replacing what was registered
// for an older state of it.
func (c *crdController) serve(crd *apiextensions.CustomResourceDefinition) error {
	keyBytes, _ := json.Marshal([]any{crd.UID, crd.Spec, crd.Status.AcceptedNames})
	key := string(keyBytes)
	if cur := c.served[crd.Name]; cur != nil && cur.key == key {
		return nil
	}
	resources, err := customResources(crd)
	if err != nil {
		return err
	}
	c.stopServing(crd.Name)
	sv := &servedCRD{key: key}
	for _, r := range resources {
		r.CreateFunc = c.refuseWhileTerminating(sv, r.Type.GroupVersionResource().GroupResource())
		if err := c.s.Register(r); err != nil {
			for _, gvr := range sv.gvrs {
				c.s.Unregister(gvr)
			}
			return err
		}
		sv.gvrs = append(sv.gvrs, r.Type.GroupVersionResource())
	}
	c.served[crd.Name] = sv
	return nil
}

// refuseWhileTerminating is the create of a custom resource: the server's
// pipeline, refused with 405 while its CRD is being deleted, as
// kube-apiserver does.
func (c *crdController) refuseWhileTerminating(sv *servedCRD, gr meta.GroupResource) func(context.Context, *Request, meta.Object) (meta.Object, error) {
	return func(ctx context.Context, req *Request, obj meta.Object) (meta.Object, error) {
		if sv.terminating.Load() {
			st := apierrors.NewMethodNotSupported(gr, "create")
			st.Message = "create not allowed while custom resource definition is terminating"
			return nil, st
		}
		return c.s.create(ctx, req, obj)
	}
}

// stopServing unregisters what was registered for the CRD name.
func (c *crdController) stopServing(name string) {
	sv := c.served[name]
	if sv == nil {
		return
	}
	for _, gvr := range sv.gvrs {
		c.s.Unregister(gvr)
	}
	delete(c.served, name)
}

// finalize deletes the custom resources of a CRD being deleted; once they
// are gone it removes the cleanup finalizer (the CRD then goes) and stops
// serving.
func (c *crdController) finalize(ctx context.Context, crd *apiextensions.CustomResourceDefinition) {
	if !crd.HasFinalizer(CustomResourceCleanupFinalizer) {
		return
	}
	if c.served[crd.Name] == nil && crd.Status.AcceptedNames.Plural != "" {
		// Not served by this process yet (it started while the CRD was
		// being deleted): serve it to find its instances.
		if err := c.serve(crd); err != nil {
			c.s.log.Warn("apiserver: cannot serve CustomResourceDefinition being deleted", "crd", crd.Name, "err", err)
			return
		}
	}
	if sv := c.served[crd.Name]; sv != nil {
		sv.terminating.Store(true)
	}
	if t := crd.Condition(apiextensions.Terminating); t == nil || t.Reason != "InstanceDeletionInProgress" {
		c.writeStatus(ctx, crd.Name, func(cur *apiextensions.CustomResourceDefinition) {
			cur.SetCondition(apiextensions.CustomResourceDefinitionCondition{Type: apiextensions.Terminating,
				Status: meta.ConditionTrue, Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress"})
		})
	}
	left, err := c.deleteInstances(ctx, crd)
	if err != nil {
		c.s.log.Warn("apiserver: deleting custom resources", "crd", crd.Name, "err", err)
		return
	}
	if left > 0 {
		return // finalizers of custom resources hold them; look again later
	}
	c.stopServing(crd.Name)
	_, err = c.crdStorage().GuaranteedUpdate(ctx, "", crd.Name, true, func(cur meta.Object) (meta.Object, error) {
		next := meta.DeepCopy(cur.(*apiextensions.CustomResourceDefinition))
		next.SetCondition(apiextensions.CustomResourceDefinitionCondition{Type: apiextensions.Terminating,
			Status: meta.ConditionFalse, Reason: "InstanceDeletionCompleted", Message: "removed all instances"})
		next.Finalizers = slices.DeleteFunc(next.Finalizers, func(f string) bool { return f == CustomResourceCleanupFinalizer })
		return next, nil
	})
	if err != nil && !apierrors.IsNotFound(err) {
		c.s.log.Warn("apiserver: removing the CRD cleanup finalizer", "crd", crd.Name, "err", err)
	}
}

// deleteInstances starts the deletion of every custom resource of crd (at
// once for those without finalizers) and returns how many are left.
func (c *crdController) deleteInstances(ctx context.Context, crd *apiextensions.CustomResourceDefinition) (int, error) {
	sv := c.served[crd.Name]
	if sv == nil || len(sv.gvrs) == 0 {
		return 0, nil // never served: no instance can exist under names never accepted
	}
	st, ok := c.s.Storage(sv.gvrs[0])
	if !ok {
		return 0, nil
	}
	list, err := st.ListRaw(ctx, "", store.ListOptions{})
	if err != nil {
		return 0, err
	}
	left := 0
	for _, kv := range list.KVs {
		obj, err := st.Decode(kv)
		if err != nil {
			return 0, err
		}
		m := obj.GetObjectMeta()
		out, err := st.GuaranteedUpdate(ctx, m.Namespace, m.Name, true, func(cur meta.Object) (meta.Object, error) {
			if cur.GetObjectMeta().DeletionTimestamp != nil {
				return nil, NoChange()
			}
			next := meta.DeepCopy(cur)
			now := meta.Now()
			zero := int64(0)
			nm := next.GetObjectMeta()
			nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = &now, &zero
			return next, nil
		})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return 0, err
		case out.GetObjectMeta().ResourceVersion != "":
			left++ // still stored: finalizers hold it
		}
	}
	return left, nil
}

// writeStatus changes the status of the CRD name in storage.
func (c *crdController) writeStatus(ctx context.Context, name string, change func(*apiextensions.CustomResourceDefinition)) {
	_, err := c.crdStorage().GuaranteedUpdate(ctx, "", name, true, func(cur meta.Object) (meta.Object, error) {
		next := meta.DeepCopy(cur.(*apiextensions.CustomResourceDefinition))
		change(next)
		if reflect.DeepEqual(next.Status, cur.(*apiextensions.CustomResourceDefinition).Status) {
			return nil, NoChange()
		}
		return next, nil
	})
	if err != nil && !apierrors.IsNotFound(err) && !errors.Is(err, context.Canceled) {
		c.s.log.Warn("apiserver: writing CustomResourceDefinition status", "crd", name, "err", err)
	}
}

func (c *crdController) crdStorage() *Storage {
	st, _ := c.s.Storage(crdGVR)
	return st
}
