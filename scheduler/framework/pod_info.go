package framework

import (
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/labels"
)

// AffinityTerm is a parsed PodAffinityTerm: the pods it selects (by label
// selector and namespace) and the topology key whose domains count as
// "together". Immutable once built; safe for concurrent use.
type AffinityTerm struct {
	Selector    labels.Selector
	Namespaces  map[string]struct{}
	AllNSpaces  bool
	TopologyKey string
}

// WeightedAffinityTerm is a preferred AffinityTerm with its weight.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// Matches reports whether pod is selected by the term.
func (t *AffinityTerm) Matches(pod *core.Pod) bool {
	if !t.AllNSpaces {
		if _, ok := t.Namespaces[pod.Namespace]; !ok {
			return false
		}
	}
	return t.Selector.Matches(labels.Set(pod.Labels))
}

// NewAffinityTerm parses term for a pod in namespace ns: no namespaces and
// no namespaceSelector means ns; an empty namespaceSelector means every
// namespace (a non-empty one is treated as every namespace too, since the
// scheduler keeps no namespace labels). A nil labelSelector selects
// nothing. The error wraps the selector's parse error.
func NewAffinityTerm(ns string, term *core.PodAffinityTerm) (AffinityTerm, error) {
	sel, err := labels.SelectorFromLabelSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("affinity term (topologyKey %q): %w", term.TopologyKey, err)
	}
	t := AffinityTerm{Selector: sel, TopologyKey: term.TopologyKey}
	if term.NamespaceSelector != nil {
		t.AllNSpaces = true
		return t, nil
	}
	t.Namespaces = map[string]struct{}{}
	for _, n := range term.Namespaces {
		t.Namespaces[n] = struct{}{}
	}
	if len(t.Namespaces) == 0 {
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
