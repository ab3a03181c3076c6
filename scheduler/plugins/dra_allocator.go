package plugins

import (
	"fmt"

	"github.com/google/cel-go/cel"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/dra"
)

// DeviceID names a device cluster-wide: driver, pool, device.
type DeviceID struct{ Driver, Pool, Device string }

// DRAAllocator allocates the devices of claims on one node from the
// published ResourceSlices, as kube-scheduler's structured allocator
// does for the common cases: every request (exact, or the first
// satisfiable firstAvailable alternative) gets Count devices (or all
// matching ones with allocationMode All) of its class that the node
// reaches, that match the class's and the request's CEL selectors, whose
// NoSchedule/NoExecute taints the request tolerates, and that no other
// claim holds (unless adminAccess). Pools whose slices are incomplete or
// of an older generation are skipped. Constraints (matchAttribute,
// distinctAttribute), shared counters, consumable capacity and binding
// conditions are not supported: a claim with constraints is not
// allocated. The zero value is not usable; fields are read-only during
// Allocate, which is safe for concurrent use.
type DRAAllocator struct {
	// Classes, by name.
	Classes map[string]*dra.DeviceClass
	// Slices are every published slice.
	Slices []*dra.ResourceSlice
	// InUse are the devices allocated to claims (and in flight).
	InUse map[DeviceID]bool
}

// candidate is a device the node reaches.
type candidate struct {
	id     DeviceID
	device *dra.Device
}

// Allocate allocates claims on node, returning one result per claim (in
// order), or an error saying why they cannot all be allocated there.
func (a *DRAAllocator) Allocate(claims []*dra.ResourceClaim, node *core.Node) ([]*dra.AllocationResult, error) {
	devices := a.reachable(node)
	taken := map[DeviceID]bool{}
	out := make([]*dra.AllocationResult, len(claims))
	for i, c := range claims {
		if len(c.Spec.Devices.Constraints) > 0 {
			return nil, fmt.Errorf("resourceclaim %q: device constraints are not supported", c.Name)
		}
		res := &dra.AllocationResult{NodeSelector: nodeSelectorFor(node)}
		for _, req := range c.Spec.Devices.Requests {
			results, class, err := a.allocateRequest(req, devices, taken)
			if err != nil {
				return nil, fmt.Errorf("resourceclaim %q: %w", c.Name, err)
			}
			res.Devices.Results = append(res.Devices.Results, results...)
			for _, cfg := range class.Spec.Config {
				res.Devices.Config = append(res.Devices.Config, dra.DeviceAllocationConfiguration{
					Source: dra.AllocationConfigSourceClass, Requests: []string{req.Name}, DeviceConfiguration: cfg.DeviceConfiguration})
			}
		}
		for _, cfg := range c.Spec.Devices.Config {
			res.Devices.Config = append(res.Devices.Config, dra.DeviceAllocationConfiguration{
				Source: dra.AllocationConfigSourceClaim, Requests: cfg.Requests, DeviceConfiguration: cfg.DeviceConfiguration})
		}
		out[i] = res
	}
	return out, nil
}

// allocateRequest picks the devices of one request: its exact form, or
// the first alternative that can be satisfied.
func (a *DRAAllocator) allocateRequest(req dra.DeviceRequest, devices []candidate, taken map[DeviceID]bool) ([]dra.DeviceRequestAllocationResult, *dra.DeviceClass, error) {
	if e := req.Exactly; e != nil {
		return a.pick(req.Name, e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count, e.Tolerations, e.AdminAccess, devices, taken)
	}
	var last error
	for _, s := range req.FirstAvailable {
		res, class, err := a.pick(req.Name+"/"+s.Name, s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count, s.Tolerations, nil, devices, taken)
		if err == nil {
			return res, class, nil
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("request %q has no alternatives", req.Name)
	}
	return nil, nil, last
}

// pick takes count (or all) matching free devices for request name.
func (a *DRAAllocator) pick(name, className string, sels []dra.DeviceSelector, mode dra.DeviceAllocationMode, count int64,
	tols []dra.DeviceToleration, admin *bool, devices []candidate, taken map[DeviceID]bool) ([]dra.DeviceRequestAllocationResult, *dra.DeviceClass, error) {
	class, ok := a.Classes[className]
	if !ok {
		return nil, nil, fmt.Errorf("request %q: device class %q does not exist", name, className)
	}
	prgs, err := compileAll(append(append([]dra.DeviceSelector(nil), class.Spec.Selectors...), sels...))
	if err != nil {
		return nil, nil, fmt.Errorf("request %q: %w", name, err)
	}
	adminAccess := admin != nil && *admin
	var picked []dra.DeviceRequestAllocationResult
	var ids []DeviceID
	for _, d := range devices {
		if mode == dra.DeviceAllocationModeExactCount && int64(len(picked)) == count {
			break
		}
		if !adminAccess && (taken[d.id] || a.InUse[d.id]) || !tolerated(d.device.Taints, tols) || !selectorsMatch(prgs, d) {
			continue
		}
		picked = append(picked, dra.DeviceRequestAllocationResult{Request: name, Driver: d.id.Driver, Pool: d.id.Pool, Device: d.id.Device, AdminAccess: admin})
		ids = append(ids, d.id)
	}
	if mode == dra.DeviceAllocationModeExactCount && int64(len(picked)) < count || len(picked) == 0 {
		return nil, nil, fmt.Errorf("request %q: not enough matching devices of class %q", name, className)
	}
	for _, id := range ids {
		taken[id] = true
	}
	return picked, class, nil
}

func compileAll(sels []dra.DeviceSelector) ([]cel.Program, error) {
	prgs := make([]cel.Program, 0, len(sels))
	for _, s := range sels {
		if s.CEL == nil {
			continue
		}
		prg, err := dra.CompileSelector(s.CEL.Expression)
		if err != nil {
			return nil, fmt.Errorf("selector %q: %w", s.CEL.Expression, err)
		}
		prgs = append(prgs, prg)
	}
	return prgs, nil
}

// selectorsMatch: every selector evaluates to true (an evaluation error is
// no match, as in kube-scheduler).
func selectorsMatch(prgs []cel.Program, d candidate) bool {
	for _, prg := range prgs {
		if ok, err := dra.DeviceMatches(prg, d.id.Driver, d.device); err != nil || !ok {
			return false
		}
	}
	return true
}

// tolerated: every NoSchedule or NoExecute taint has a matching
// toleration.
func tolerated(taints []dra.DeviceTaint, tols []dra.DeviceToleration) bool {
	for _, t := range taints {
		if t.Effect == dra.DeviceTaintEffectNone {
			continue
		}
		ok := false
		for _, tol := range tols {
			if (tol.Key == "" || tol.Key == t.Key) && (tol.Effect == "" || tol.Effect == t.Effect) &&
				(tol.Operator == dra.DeviceTolerationOpExists || tol.Value == t.Value) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// reachable lists the devices of complete, current pools that node
// reaches, in slice then device order.
func (a *DRAAllocator) reachable(node *core.Node) []candidate {
	type poolKey struct{ driver, pool string }
	gen := map[poolKey]int64{}
	count := map[poolKey]int64{}
	for _, s := range a.Slices {
		k := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
		if g, ok := gen[k]; !ok || s.Spec.Pool.Generation > g {
			gen[k], count[k] = s.Spec.Pool.Generation, 0
		}
		if s.Spec.Pool.Generation == gen[k] {
			count[k]++
		}
	}
	var out []candidate
	for _, s := range a.Slices {
		k := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
		if s.Spec.Pool.Generation != gen[k] || count[k] < s.Spec.Pool.ResourceSliceCount {
			continue
		}
		sliceReach := reaches(node, s.Spec.NodeName, s.Spec.NodeSelector, s.Spec.AllNodes)
		perDevice := s.Spec.PerDeviceNodeSelection != nil && *s.Spec.PerDeviceNodeSelection
		for i := range s.Spec.Devices {
			d := &s.Spec.Devices[i]
			if perDevice && !reaches(node, d.NodeName, d.NodeSelector, d.AllNodes) || !perDevice && !sliceReach {
				continue
			}
			out = append(out, candidate{id: DeviceID{s.Spec.Driver, s.Spec.Pool.Name, d.Name}, device: d})
		}
	}
	return out
}

func reaches(node *core.Node, name *string, sel *core.NodeSelector, all *bool) bool {
	switch {
	case name != nil:
		return *name == node.Name
	case sel != nil:
		return core.MatchNodeSelectorTerms(node, sel.NodeSelectorTerms)
	}
	return all != nil && *all
}

// nodeSelectorFor is the allocation's node selector: the node itself, by
// name (devices of a node-local slice are reachable from it only).
func nodeSelectorFor(node *core.Node) *core.NodeSelector {
	return &core.NodeSelector{NodeSelectorTerms: []core.NodeSelectorTerm{{
		MatchFields: []core.NodeSelectorRequirement{{Key: "metadata.name", Operator: core.NodeSelectorOpIn, Values: []string{node.Name}}},
	}}}
}
