package kubelet

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/resource"
)

// AdmitAttributes is what an admission handler decides on: the new pod,
// the pods the node already runs, and the node's allocatable resources.
type AdmitAttributes struct {
	Pod         *core.Pod
	OtherPods   []*core.Pod
	Allocatable core.ResourceList
}

// AdmitResult is an admission handler's decision. A refusal is hard (the
// pod fails with Reason, such as OutOfcpu) unless Soft, which leaves the
// pod Pending with the reason.
type AdmitResult struct {
	Admit   bool
	Reason  string
	Message string
	Soft    bool
}

// AdmitHandler decides whether a pod may run on this node. Handlers run in
// order when a pod first reaches the kubelet; the first refusal wins.
// Admit must not block.
type AdmitHandler interface {
	Name() string
	Admit(attrs AdmitAttributes) AdmitResult
}

// DefaultAdmitHandlers returns the built-in handlers: the resource fit
// and the host ports, as the kubelet re-checks the scheduler's general
// predicates (a pod bound by nodeName skips the scheduler).
func DefaultAdmitHandlers() []AdmitHandler { return []AdmitHandler{ResourceFit{}, HostPorts{}} }

// HostPorts refuses a pod whose host ports clash with those of a pod the
// node runs (core.HostPort.Conflicts), with kube's reason NodePorts. The
// refusal is hard: the pod fails, so its controller can replace it.
type HostPorts struct{}

var _ AdmitHandler = HostPorts{}

// Name implements AdmitHandler.
func (HostPorts) Name() string { return "NodePorts" }

// Admit implements AdmitHandler.
func (HostPorts) Admit(a AdmitAttributes) AdmitResult {
	want := core.PodHostPorts(a.Pod)
	if len(want) == 0 {
		return AdmitResult{Admit: true}
	}
	for _, p := range a.OtherPods {
		for _, used := range core.PodHostPorts(p) {
			for _, w := range want {
				if w.Conflicts(used) {
					return AdmitResult{Reason: "NodePorts", Message: fmt.Sprintf(
						"Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (%s %s:%d is used by pod %s/%s)",
						w.Protocol, w.IP, w.Port, p.Namespace, p.Name)}
				}
			}
		}
	}
	return AdmitResult{Admit: true}
}

// ResourceFit refuses a pod whose requests no longer fit the node's
// allocatable resources next to the pods it runs, with Kubernetes' reasons
// OutOfcpu, OutOfmemory, OutOfpods, OutOf<resource>.
type ResourceFit struct{}

var _ AdmitHandler = ResourceFit{}

// Name implements AdmitHandler.
func (ResourceFit) Name() string { return "NodeResourcesFit" }

// Admit implements AdmitHandler.
func (ResourceFit) Admit(a AdmitAttributes) AdmitResult {
	if pods, ok := a.Allocatable[core.ResourcePods]; ok && int64(len(a.OtherPods))+1 > pods.Value() {
		return AdmitResult{Reason: "OutOfpods", Message: fmt.Sprintf("Node didn't have enough resource: pods, requested: 1, used: %d, capacity: %d", len(a.OtherPods), pods.Value())}
	}
	used := requestsOf(a.OtherPods)
	for name, req := range core.PodRequests(a.Pod) {
		alloc, ok := a.Allocatable[name]
		if !ok || req.IsZero() {
			continue
		}
		if msg, short := notEnough(name, req, used[name], alloc); short {
			return AdmitResult{Reason: "OutOf" + string(name), Message: msg}
		}
	}
	return AdmitResult{Admit: true}
}

// requestsOf sums the requests of pods.
func requestsOf(pods []*core.Pod) core.ResourceList {
	used := core.ResourceList{}
	for _, p := range pods {
		for name, q := range core.PodRequests(p) {
			u := used[name]
			u.Add(q)
			used[name] = u
		}
	}
	return used
}

// notEnough says, as the kubelet's admission does, when req on top of
// used exceeds alloc of resource name.
func notEnough(name core.ResourceName, req, used, alloc resource.Quantity) (string, bool) {
	total := used.DeepCopy()
	total.Add(req)
	if total.Cmp(alloc) <= 0 {
		return "", false
	}
	return fmt.Sprintf("Node didn't have enough resource: %s, requested: %s, used: %s, capacity: %s",
		name, qstr(req), qstr(used), qstr(alloc)), true
}

func qstr(q resource.Quantity) string { return q.String() }

// SecurityProfile refuses pods that ask for a seccomp or AppArmor profile
// of type Localhost whose name is not in Allowed, or for privileged
// containers when DenyPrivileged is set. The refusal is soft: the pod
// stays Pending with the reason, as Kubernetes does for AppArmor.
type SecurityProfile struct {
	Allowed        map[string]bool
	DenyPrivileged bool
}

var _ AdmitHandler = SecurityProfile{}

// Name implements AdmitHandler.
func (SecurityProfile) Name() string { return "SecurityProfile" }

// Admit implements AdmitHandler.
func (s SecurityProfile) Admit(a AdmitAttributes) AdmitResult {
	refuse := func(msg string) AdmitResult {
		return AdmitResult{Reason: "SecurityProfileUnavailable", Message: msg, Soft: true}
	}
	check := func(sp *core.SeccompProfile, aa *core.AppArmorProfile, who string) (AdmitResult, bool) {
		if sp != nil && sp.Type == core.SeccompProfileTypeLocalhost {
			name := ""
			if sp.LocalhostProfile != nil {
				name = *sp.LocalhostProfile
			}
			if !s.Allowed[name] {
				return refuse(fmt.Sprintf("%s: seccomp profile %q is not loaded on this node", who, name)), false
			}
		}
		if aa != nil && strings.EqualFold(aa.Type, "Localhost") {
			name := ""
			if aa.LocalhostProfile != nil {
				name = *aa.LocalhostProfile
			}
			if !s.Allowed[name] {
				return refuse(fmt.Sprintf("%s: AppArmor profile %q is not loaded on this node", who, name)), false
			}
		}
		return AdmitResult{}, true
	}
	if psc := a.Pod.Spec.SecurityContext; psc != nil {
		if r, ok := check(psc.SeccompProfile, psc.AppArmorProfile, "pod"); !ok {
			return r
		}
	}
	all := append(append([]core.Container(nil), a.Pod.Spec.InitContainers...), a.Pod.Spec.Containers...)
	for _, c := range all {
		sc := c.SecurityContext
		if sc == nil {
			continue
		}
		if r, ok := check(sc.SeccompProfile, sc.AppArmorProfile, "container "+c.Name); !ok {
			return r
		}
		if s.DenyPrivileged && sc.Privileged != nil && *sc.Privileged {
			return refuse("container " + c.Name + ": privileged containers are not allowed on this node")
		}
	}
	return AdmitResult{Admit: true}
}

// admit runs the admission handlers on pod.
func (k *Kubelet) admit(pod *core.Pod) AdmitResult {
	attrs := AdmitAttributes{Pod: pod, OtherPods: k.activePods(pod.UID), Allocatable: k.allocatable()}
	for _, h := range k.cfg.AdmitHandlers {
		if r := h.Admit(attrs); !r.Admit {
			if r.Reason == "" {
				r.Reason = h.Name()
			}
			return r
		}
	}
	return AdmitResult{Admit: true}
}

// allocatable is capacity minus the reservations.
func (k *Kubelet) allocatable() core.ResourceList {
	k.node.mu.Lock()
	a := k.node.lastStatus.Allocatable
	k.node.mu.Unlock()
	if a != nil {
		return a
	}
	return k.capacity()
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
