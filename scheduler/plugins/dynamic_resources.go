package plugins

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/dra"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/scheduler/framework"
)

// NameDynamicResources is the name of the DynamicResources plugin.
const NameDynamicResources = "DynamicResources"

// DynamicResources reasons, worded as kube-scheduler's.
const (
	ReasonClaimNotAvailable = "resourceclaim not available on the node"
	ReasonCannotAllocate    = "cannot allocate all claims"
)

// deleteProtection is the finalizer an allocator puts on the claims it
// allocates (resource.kubernetes.io/delete-protection).
const deleteProtection = "resource.kubernetes.io/delete-protection"

// maxReservedFor is how many consumers a claim may be reserved for.
const maxReservedFor = 256

// DynamicResources places pods that use ResourceClaims
// (resource.k8s.io/v1, Dynamic Resource Allocation), as kube-scheduler's
// DynamicResources plugin does:
//
//	PreFilter  every claim of the pod must exist (a template's claim must have
//	           been made by the resourceclaim controller), not be deleting, and
//	           have room in reservedFor; a pod without claims is skipped
//	Filter     an allocated claim's node selector must match the node; the
//	           unallocated ones must all be allocatable there (DRAAllocator)
//	Reserve    the chosen node's allocation is held in memory, so the next pods
//	           do not get the same devices before the claims are written
//	PreBind    (the binding worker) each claim gets the delete-protection
//	           finalizer, its allocation and the pod in status.reservedFor
//
// The zero value is not usable: Classes, Slices, Claims (informer
// listers) and Client are required. Safe for concurrent use.
type DynamicResources struct {
	Classes informer.Lister[*dra.DeviceClass]
	Slices  informer.Lister[*dra.ResourceSlice]
	Claims  informer.Lister[*dra.ResourceClaim]
	Client  *client.Client

	mu sync.Mutex
	// inFlight are allocations reserved but maybe not yet seen by the
	// Claims informer, by claim UID.
	inFlight map[meta.UID]*dra.AllocationResult
}

var (
	_ framework.Predicate = (*DynamicResources)(nil)
	_ framework.PreFilter = (*DynamicResources)(nil)
	_ framework.Reserve   = (*DynamicResources)(nil)
	_ framework.PreBind   = (*DynamicResources)(nil)
)

const draKey framework.StateKey = "PreFilter" + NameDynamicResources

// podClaims are a pod's claims for one cycle, and the allocation chosen
// per node (written by Filter, in parallel).
type podClaims struct {
	claims []*dra.ResourceClaim
	mu     sync.Mutex
	byNode map[string]map[meta.UID]*dra.AllocationResult
}

// Clone implements framework.StateData; the value is shared within a
// cycle.
func (p *podClaims) Clone() framework.StateData { return p }

// Name implements framework.Plugin.
func (*DynamicResources) Name() string { return NameDynamicResources }

// PreFilter resolves the pod's claims.
func (d *DynamicResources) PreFilter(_ context.Context, state *framework.CycleState, pod *core.Pod) *framework.Status {
	entries, err := dra.PodClaims(pod)
	if err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	if len(entries) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	pc := &podClaims{byNode: map[string]map[meta.UID]*dra.AllocationResult{}}
	for _, e := range entries {
		name, ok, err := dra.PodClaimName(pod, e)
		switch {
		case err != nil:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
		case !ok:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for the resource claim of entry %q to be created", e.Name))
		}
		c, err := d.Claims.Get(pod.Namespace, name)
		switch {
		case errors.Is(err, informer.ErrNotFound):
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("resourceclaim %q not found", name))
		case err != nil:
			return framework.AsStatus(err)
		case c.DeletionTimestamp != nil:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("resourceclaim %q is being deleted", name))
		case len(c.Status.ReservedFor) >= maxReservedFor && !reservedFor(c, pod):
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("resourceclaim %q is in use", name))
		}
		pc.claims = append(pc.claims, c)
	}
	state.Write(draKey, pc)
	return nil
}

func reservedFor(c *dra.ResourceClaim, pod *core.Pod) bool {
	return slices.ContainsFunc(c.Status.ReservedFor, func(r dra.ResourceClaimConsumerReference) bool { return r.UID == pod.UID })
}

// Filter implements framework.Predicate.
func (d *DynamicResources) Filter(_ context.Context, state *framework.CycleState, _ *core.Pod, ni *framework.NodeInfo) *framework.Status {
	pc, err := framework.ReadAs[*podClaims](state, draKey)
	if err != nil {
		return nil // PreFilter skipped: no claims
	}
	node := ni.Node()
	var pending []*dra.ResourceClaim
	for _, c := range pc.claims {
		a := c.Status.Allocation
		if a == nil {
			a = d.inFlightFor(c.UID)
		}
		switch {
		case a == nil:
			pending = append(pending, c)
		case a.NodeSelector != nil && !core.MatchNodeSelectorTerms(node, a.NodeSelector.NodeSelectorTerms):
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonClaimNotAvailable)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	results, err := d.allocator().Allocate(pending, node)
	if err != nil {
		return framework.NewStatus(framework.Unschedulable, ReasonCannotAllocate)
	}
	byUID := make(map[meta.UID]*dra.AllocationResult, len(pending))
	for i, c := range pending {
		byUID[c.UID] = results[i]
	}
	pc.mu.Lock()
	pc.byNode[node.Name] = byUID
	pc.mu.Unlock()
	return nil
}

func (d *DynamicResources) inFlightFor(uid meta.UID) *dra.AllocationResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inFlight[uid]
}

// allocator is a DRAAllocator over the listers' current state: the
// devices of every allocated claim and of the in-flight allocations are
// in use.
func (d *DynamicResources) allocator() *DRAAllocator {
	a := &DRAAllocator{Classes: map[string]*dra.DeviceClass{}, Slices: d.Slices.List(nil), InUse: map[DeviceID]bool{}}
	for _, c := range d.Classes.List(nil) {
		a.Classes[c.Name] = c
	}
	markUsed := func(r *dra.AllocationResult) {
		for _, res := range r.Devices.Results {
			if res.AdminAccess == nil || !*res.AdminAccess {
				a.InUse[DeviceID{res.Driver, res.Pool, res.Device}] = true
			}
		}
	}
	seen := map[meta.UID]bool{}
	for _, c := range d.Claims.List(nil) {
		if c.Status.Allocation != nil {
			markUsed(c.Status.Allocation)
			seen[c.UID] = true
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for uid, r := range d.inFlight {
		if seen[uid] {
			delete(d.inFlight, uid) // the informer has the written allocation
			continue
		}
		markUsed(r)
	}
	return a
}

// Reserve holds the allocation chosen for nodeName, re-checking it
// against allocations reserved since Filter ran.
func (d *DynamicResources) Reserve(_ context.Context, state *framework.CycleState, _ *core.Pod, nodeName string) *framework.Status {
	pc, err := framework.ReadAs[*podClaims](state, draKey)
	if err != nil {
		return nil
	}
	pc.mu.Lock()
	results := pc.byNode[nodeName]
	pc.mu.Unlock()
	if len(results) == 0 {
		return nil
	}
	inUse := d.allocator().InUse
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range results {
		for _, res := range r.Devices.Results {
			if inUse[DeviceID{res.Driver, res.Pool, res.Device}] && (res.AdminAccess == nil || !*res.AdminAccess) {
				return framework.NewStatus(framework.Unschedulable, ReasonCannotAllocate)
			}
		}
	}
	if d.inFlight == nil {
		d.inFlight = map[meta.UID]*dra.AllocationResult{}
	}
	for uid, r := range results {
		d.inFlight[uid] = r
	}
	return nil
}

// Unreserve drops the allocations Reserve held for the pod's claims.
func (d *DynamicResources) Unreserve(_ context.Context, state *framework.CycleState, _ *core.Pod, nodeName string) {
	pc, err := framework.ReadAs[*podClaims](state, draKey)
	if err != nil {
		return
	}
	pc.mu.Lock()
	results := pc.byNode[nodeName]
	pc.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	for uid := range results {
		delete(d.inFlight, uid)
	}
}

// PreBind writes each claim's allocation (with the delete-protection
// finalizer first) and reserves it for the pod.
func (d *DynamicResources) PreBind(ctx context.Context, state *framework.CycleState, pod *core.Pod, _ string) *framework.Status {
	pc, err := framework.ReadAs[*podClaims](state, draKey)
	if err != nil {
		return framework.NewStatus(framework.Skip)
	}
	for _, c := range pc.claims {
		var alloc *dra.AllocationResult
		if c.Status.Allocation == nil {
			alloc = d.inFlightFor(c.UID)
		}
		if err := d.bindClaim(ctx, c, alloc, pod); err != nil {
			return framework.AsStatus(err)
		}
	}
	return nil
}

// bindClaim writes alloc (when not nil) and the pod's reservation into
// claim c, re-reading it on conflicts.
func (d *DynamicResources) bindClaim(ctx context.Context, c *dra.ResourceClaim, alloc *dra.AllocationResult, pod *core.Pod) error {
	claims := client.For[dra.ResourceClaim](d.Client, c.Namespace)
	for range 5 {
		cur, err := claims.Get(ctx, c.Name)
		if err != nil {
			return fmt.Errorf("resourceclaim %s/%s: %w", c.Namespace, c.Name, err)
		}
		if cur.UID != c.UID {
			return fmt.Errorf("resourceclaim %s/%s was replaced", c.Namespace, c.Name)
		}
		if alloc != nil && cur.Status.Allocation == nil && !slices.Contains(cur.Finalizers, deleteProtection) {
			next := meta.DeepCopy(cur)
			next.Finalizers = append(next.Finalizers, deleteProtection)
			if cur, err = claims.Update(ctx, next); err != nil {
				if apierrors.IsConflict(err) {
					continue
				}
				return fmt.Errorf("protect resourceclaim %s/%s: %w", c.Namespace, c.Name, err)
			}
		}
		next := meta.DeepCopy(cur)
		if next.Status.Allocation == nil {
			if alloc == nil {
				return fmt.Errorf("resourceclaim %s/%s lost its allocation", c.Namespace, c.Name)
			}
			now := meta.Now()
			a := *alloc
			a.AllocationTimestamp = &now
			next.Status.Allocation = &a
		}
		if !reservedFor(next, pod) {
			next.Status.ReservedFor = append(next.Status.ReservedFor, dra.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
		}
		_, err = claims.UpdateStatus(ctx, next)
		if apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("allocate resourceclaim %s/%s: %w", c.Namespace, c.Name, err)
		}
		return nil
	}
	return fmt.Errorf("resourceclaim %s/%s: too many conflicts", c.Namespace, c.Name)
}
