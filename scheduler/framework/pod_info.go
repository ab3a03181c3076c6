package framework

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// AffinityTerm is a parsed PodAffinityTerm: the pods it selects (by label
// selector, and by namespace name or namespace labels) and the topology
// key whose domains count as "together". Immutable once built; safe for
// concurrent use.
type AffinityTerm struct {
	Selector labels.Selector
	// Namespaces holds the namespaces named by the term (the pod's own
	// when it names none and has no namespaceSelector).
	Namespaces map[string]struct{}
	// NamespaceSelector selects further namespaces by their labels; nil
	// when the term has none, Everything for an empty one ({}: every
	// namespace).
	NamespaceSelector labels.Selector
	TopologyKey       string
}

// WeightedAffinityTerm is a preferred AffinityTerm with its weight.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// Matches reports whether pod, whose namespace carries nsLabels, is
// selected by the term.
func (t *AffinityTerm) Matches(pod *core.Pod, nsLabels labels.Set) bool {
	if _, ok := t.Namespaces[pod.Namespace]; !ok {
		if t.NamespaceSelector == nil || !t.NamespaceSelector.Matches(nsLabels) {
			return false
		}
	}
	return t.Selector.Matches(labels.Set(pod.Labels))
}

// Resolved returns the term with its namespaceSelector turned into
// namespace names through ns, as kube-scheduler does for the pod being
// scheduled, so it can be matched against pods of any namespace without
// their namespaces' labels. An empty selector (every namespace) and a
// term without one are returned as they are.
func (t AffinityTerm) Resolved(ns Namespaces) AffinityTerm {
	if t.NamespaceSelector == nil || t.NamespaceSelector.Empty() {
		return t
	}
	merged := make(map[string]struct{}, len(t.Namespaces))
	for n := range t.Namespaces {
		merged[n] = struct{}{}
	}
	if ns != nil {
		for _, n := range ns.Matching(t.NamespaceSelector) {
			merged[n] = struct{}{}
		}
	}
	t.Namespaces, t.NamespaceSelector = merged, nil
	return t
}

// NewAffinityTerm parses term for a pod in namespace ns: no namespaces and
// no namespaceSelector means ns; an empty namespaceSelector means every
// namespace. A nil labelSelector selects nothing. The error wraps the
// selector's parse error.
func NewAffinityTerm(ns string, term *core.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := labels.SelectorFromLabelSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("affinity term (topologyKey %q): %w", term.TopologyKey, err)
	}
	t := AffinityTerm{Selector: sel, TopologyKey: term.TopologyKey, Namespaces: map[string]struct{}{}}
	if term.NamespaceSelector != nil {
		if t.NamespaceSelector, err = labels.SelectorFromLabelSelector(term.NamespaceSelector); err != nil {
			return AffinityTerm{}, fmt.Errorf("affinity term (topologyKey %q) namespaceSelector: %w", term.TopologyKey, err)
		}
	}
	for _, n := range term.Namespaces {
		t.Namespaces[n] = struct{}{}
	}
	if len(t.Namespaces) == 0 && term.NamespaceSelector == nil {
		t.Namespaces[ns] = struct{}{}
	}
	return t, nil
}

// PodInfo is a pod with what the scheduler derives from it once: its
// resource requests and its parsed (anti-)affinity terms. It is built
// when the pod enters the cache or the queue and is immutable afterwards,
// so NodeInfo clones share it.
type PodInfo struct {
	Pod             *core.Pod
	Requests        Resource
	NonZeroRequests Resource
	// ControllerUID is the UID of the pod's controller owner reference,
	// empty without one: spreading plugins compare it for every pod on
	// every scored node, without reading the pod itself.
	ControllerUID meta.UID

	RequiredAffinity      []AffinityTerm
	RequiredAntiAffinity  []AffinityTerm
	PreferredAffinity     []WeightedAffinityTerm
	PreferredAntiAffinity []WeightedAffinityTerm
	// ParseErr is the first error parsing an affinity term; the terms
	// that failed are left out. Predicates treat a pod whose own terms
	// failed to parse as unschedulable.
	ParseErr error
}

// NewPodInfo derives a PodInfo from pod, which it keeps (not a copy).
func NewPodInfo(pod *core.Pod) *PodInfo {
	pi := &PodInfo{Pod: pod}
	pi.Requests, pi.NonZeroRequests = PodRequests(pod)
	if ref := meta.ControllerOf(&pod.ObjectMeta); ref != nil {
		pi.ControllerUID = ref.UID
	}
	aff := pod.Spec.Affinity
	if aff == nil {
		return pi
	}
	if a := aff.PodAffinity; a != nil {
		pi.RequiredAffinity = pi.terms(a.RequiredDuringSchedulingIgnoredDuringExecution)
		pi.PreferredAffinity = pi.weighted(a.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if a := aff.PodAntiAffinity; a != nil {
		pi.RequiredAntiAffinity = pi.terms(a.RequiredDuringSchedulingIgnoredDuringExecution)
		pi.PreferredAntiAffinity = pi.weighted(a.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return pi
}

// Resolved returns pi with the namespaceSelectors of its own terms turned
// into namespace names through ns (see AffinityTerm.Resolved), or pi
// itself when no term has a non-empty namespaceSelector. The copy shares
// everything else with pi.
func (pi *PodInfo) Resolved(ns Namespaces) *PodInfo {
	if !needsResolving(pi.RequiredAffinity) && !needsResolving(pi.RequiredAntiAffinity) &&
		!needsResolvingWeighted(pi.PreferredAffinity) && !needsResolvingWeighted(pi.PreferredAntiAffinity) {
		return pi
	}
	out := *pi
	resolve := func(in []AffinityTerm) []AffinityTerm {
		r := make([]AffinityTerm, len(in))
		for i := range in {
			r[i] = in[i].Resolved(ns)
		}
		return r
	}
	resolveWeighted := func(in []WeightedAffinityTerm) []WeightedAffinityTerm {
		r := make([]WeightedAffinityTerm, len(in))
		for i := range in {
			r[i] = WeightedAffinityTerm{in[i].AffinityTerm.Resolved(ns), in[i].Weight}
		}
		return r
	}
	out.RequiredAffinity = resolve(pi.RequiredAffinity)
	out.RequiredAntiAffinity = resolve(pi.RequiredAntiAffinity)
	out.PreferredAffinity = resolveWeighted(pi.PreferredAffinity)
	out.PreferredAntiAffinity = resolveWeighted(pi.PreferredAntiAffinity)
	return &out
}

func needsResolving(terms []AffinityTerm) bool {
	for i := range terms {
		if sel := terms[i].NamespaceSelector; sel != nil && !sel.Empty() {
			return true
		}
	}
	return false
}

func needsResolvingWeighted(terms []WeightedAffinityTerm) bool {
	for i := range terms {
		if sel := terms[i].NamespaceSelector; sel != nil && !sel.Empty() {
			return true
		}
	}
	return false
}

func (pi *PodInfo) terms(in []core.PodAffinityTerm) []AffinityTerm {
	var out []AffinityTerm
	for i := range in {
		t, err := NewAffinityTerm(pi.Pod.Namespace, &in[i])
		if err != nil {
			if pi.ParseErr == nil {
				pi.ParseErr = err
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

func (pi *PodInfo) weighted(in []core.WeightedPodAffinityTerm) []WeightedAffinityTerm {
	var out []WeightedAffinityTerm
	for i := range in {
		t, err := NewAffinityTerm(pi.Pod.Namespace, &in[i].PodAffinityTerm)
		if err != nil {
			if pi.ParseErr == nil {
				pi.ParseErr = err
			}
			continue
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: in[i].Weight})
	}
	return out
}

// HasAffinity reports whether the pod has any pod affinity or
// anti-affinity term.
func (pi *PodInfo) HasAffinity() bool {
	return len(pi.RequiredAffinity)+len(pi.RequiredAntiAffinity)+
		len(pi.PreferredAffinity)+len(pi.PreferredAntiAffinity) > 0
}

// PodKey returns "namespace/name", the key pods are known by.
func PodKey(pod *core.Pod) string { return pod.Namespace + "/" + pod.Name }

// PodPriority returns spec.priority, or 0 when unset.
func PodPriority(pod *core.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// IsTerminating reports whether the pod has a deletion timestamp.
func IsTerminating(pod *core.Pod) bool { return pod.DeletionTimestamp != nil }
