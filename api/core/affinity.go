package core

import (
	"slices"
	"strconv"

	"github.com/orkit/orkit/api/meta"
)

// NodeSelectorOperator is the operator of a node selector requirement.
type NodeSelectorOperator string

// The node selector operators.
const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// NodeSelector selects nodes: a node matches if it matches any term.
type NodeSelector struct {
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm matches a node when every requirement holds.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
	MatchFields      []NodeSelectorRequirement `json:"matchFields,omitempty"`
}

// NodeSelectorRequirement is one requirement on a node label or field.
type NodeSelectorRequirement struct {
	Key      string               `json:"key"`
	Operator NodeSelectorOperator `json:"operator"`
	Values   []string             `json:"values,omitempty"`
}

// Affinity holds a pod's scheduling constraints.
type Affinity struct {
	NodeAffinity    *NodeAffinity    `json:"nodeAffinity,omitempty"`
	PodAffinity     *PodAffinity     `json:"podAffinity,omitempty"`
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// NodeAffinity constrains the nodes a pod may run on.
type NodeAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  *NodeSelector             `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PreferredSchedulingTerm is a weighted node preference.
type PreferredSchedulingTerm struct {
	Weight     int32            `json:"weight"`
	Preference NodeSelectorTerm `json:"preference"`
}

// PodAffinity attracts a pod to topology domains running matching pods.
type PodAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAntiAffinity keeps a pod out of topology domains running matching pods.
type PodAntiAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm selects pods (by labels, in namespaces) and the topology
// key whose domains count as "together".
type PodAffinityTerm struct {
	LabelSelector     *meta.LabelSelector `json:"labelSelector,omitempty"`
	Namespaces        []string            `json:"namespaces,omitempty"`
	TopologyKey       string              `json:"topologyKey"`
	NamespaceSelector *meta.LabelSelector `json:"namespaceSelector,omitempty"`
	MatchLabelKeys    []string            `json:"matchLabelKeys,omitempty"`
	MismatchLabelKeys []string            `json:"mismatchLabelKeys,omitempty"`
}

// WeightedPodAffinityTerm is a weighted pod (anti-)affinity preference.
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects.
const (
	TaintEffectNoSchedule       TaintEffect = "NoSchedule"
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	TaintEffectNoExecute        TaintEffect = "NoExecute"
)

// Taint repels pods from a node unless they tolerate it.
type Taint struct {
	Key       string      `json:"key"`
	Value     string      `json:"value,omitempty"`
	Effect    TaintEffect `json:"effect"`
	TimeAdded *meta.Time  `json:"timeAdded,omitempty"`
}

// MatchTaint reports whether t and other have the same key and effect,
// which is what makes taints distinct on a node.
func (t *Taint) MatchTaint(other *Taint) bool {
	return t.Key == other.Key && t.Effect == other.Effect
}

// ToString renders the taint as kubectl does: "key=value:Effect".
func (t *Taint) ToString() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	return s
}

// TolerationOperator is the operator of a toleration.
type TolerationOperator string

// The toleration operators; an empty operator means Equal.
const (
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpEqual  TolerationOperator = "Equal"
)

// Toleration lets a pod run on nodes with a matching taint.
type Toleration struct {
	Key               string             `json:"key,omitempty"`
	Operator          TolerationOperator `json:"operator,omitempty"`
	Value             string             `json:"value,omitempty"`
	Effect            TaintEffect        `json:"effect,omitempty"`
	TolerationSeconds *int64             `json:"tolerationSeconds,omitempty"`
}

// ToleratesTaint reports whether the toleration matches taint, with
// Kubernetes' rules: an empty effect matches every effect; an empty key
// matches every key (validation allows that only with Exists); Exists
// ignores the value; Equal (or empty) requires the value to be equal.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	default:
		return false
	}
}

// TolerationsTolerateTaint reports whether any of tolerations matches taint.
func TolerationsTolerateTaint(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// PodMatchesNodeAffinity reports whether node carries every label of the
// pod's nodeSelector and matches its required node affinity (any term), as
// the scheduler's NodeAffinity predicate and the DaemonSet controller
// decide where a pod may run. It is a pure function of its arguments.
func PodMatchesNodeAffinity(pod *Pod, node *Node) bool {
	for k, v := range pod.Spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	return MatchNodeSelectorTerms(node, a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
}

// MatchNodeSelectorTerms reports whether node matches any of terms (none
// matches when terms is empty).
func MatchNodeSelectorTerms(node *Node, terms []NodeSelectorTerm) bool {
	for i := range terms {
		if MatchNodeSelectorTerm(node, &terms[i]) {
			return true
		}
	}
	return false
}

// MatchNodeSelectorTerm reports whether node satisfies every requirement
// of term. A term with no requirements matches no node. matchFields
// supports metadata.name with In and NotIn.
func MatchNodeSelectorTerm(node *Node, term *NodeSelectorTerm) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for i := range term.MatchExpressions {
		r := &term.MatchExpressions[i]
		v, ok := node.Labels[r.Key]
		if !r.matches(v, ok) {
			return false
		}
	}
	for i := range term.MatchFields {
		r := &term.MatchFields[i]
		if r.Key != "metadata.name" || (r.Operator != NodeSelectorOpIn && r.Operator != NodeSelectorOpNotIn) {
			return false
		}
		if !r.matches(node.Name, true) {
			return false
		}
	}
	return true
}

// matches applies the requirement to the value v (present when ok). Gt
// and Lt compare integers; a value or bound that is not one fails.
func (r *NodeSelectorRequirement) matches(v string, ok bool) bool {
	switch r.Operator {
	case NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case NodeSelectorOpExists:
		return ok
	case NodeSelectorOpDoesNotExist:
		return !ok
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		bound, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == NodeSelectorOpGt {
			return have > bound
		}
		return have < bound
	}
	return false
}

// TopologySpreadConstraint spreads matching pods across topology domains.
type TopologySpreadConstraint struct {
	MaxSkew            int32               `json:"maxSkew"`
	TopologyKey        string              `json:"topologyKey"`
	WhenUnsatisfiable  string              `json:"whenUnsatisfiable"`
	LabelSelector      *meta.LabelSelector `json:"labelSelector,omitempty"`
	MinDomains         *int32              `json:"minDomains,omitempty"`
	NodeAffinityPolicy *string             `json:"nodeAffinityPolicy,omitempty"`
	NodeTaintsPolicy   *string             `json:"nodeTaintsPolicy,omitempty"`
	MatchLabelKeys     []string            `json:"matchLabelKeys,omitempty"`
}

// The values of TopologySpreadConstraint.NodeAffinityPolicy and
// NodeTaintsPolicy.
const (
	NodeInclusionPolicyHonor  = "Honor"
	NodeInclusionPolicyIgnore = "Ignore"
)

// The values of TopologySpreadConstraint.WhenUnsatisfiable.
const (
	DoNotSchedule  = "DoNotSchedule"
	ScheduleAnyway = "ScheduleAnyway"
)

// TopologySelectorTerm selects a topology domain (StorageClass
// allowedTopologies): every requirement must hold.
type TopologySelectorTerm struct {
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty"`
}

// TopologySelectorLabelRequirement asks a topology label to have one of
// the values.
type TopologySelectorLabelRequirement struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}
