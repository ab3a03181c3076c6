package core

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// ValidatePod checks a new Pod: its metadata (name a DNS subdomain,
// namespace required) and its spec (ValidatePodSpec). Call it after
// DefaultPod, as the API server does; fields that defaulting fills are
// required here. Messages read as Kubernetes' do.
func ValidatePod(pod *Pod) field.ErrorList {
	errs := validation.ValidateObjectMeta(&pod.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if v, ok := pod.Annotations[AnnotationMirrorPod]; ok && pod.Spec.NodeName == "" {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(AnnotationMirrorPod), v,
			"must set spec.nodeName if mirror pod annotation is set"))
	}
	errs = append(errs, validateDeletionCost(pod.Annotations, field.NewPath("metadata", "annotations"))...)
	return append(errs, validatePodSpec(&pod.Spec, true, field.NewPath("spec"))...)
}

func validateDeletionCost(annotations map[string]string, p *field.Path) field.ErrorList {
	if v, ok := annotations[AnnotationPodDeletionCost]; ok {
		if _, err := strconv.ParseInt(v, 10, 32); err != nil {
			return field.ErrorList{field.Invalid(p.Key(AnnotationPodDeletionCost), v, "must be a 32bit integer")}
		}
	}
	return nil
}

// ValidatePodTemplateSpec checks a pod template of a workload kind: its
// labels and annotations and its spec. p is the template's path
// ("spec.template").
func ValidatePodTemplateSpec(t *PodTemplateSpec, p *field.Path) field.ErrorList {
	mp := p.Child("metadata")
	errs := validation.ValidateLabels(t.Labels, mp.Child("labels"))
	errs = append(errs, validation.ValidateAnnotations(t.Annotations, mp.Child("annotations"))...)
	errs = append(errs, validateDeletionCost(t.Annotations, mp.Child("annotations"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(p.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return append(errs, validatePodSpec(&t.Spec, false, p.Child("spec"))...)
}

// ValidatePodSpec checks a pod spec at path p: volumes, init and app
// containers (names DNS labels and unique across both, images, ports,
// environment, resources with requests ≤ limits, mounts of declared
// volumes, probes, hooks), restart and DNS policies, scheduling fields
// (node selector, affinity, tolerations, topology spread), names of the
// service account, node, scheduler and priority class, and the rest.
func ValidatePodSpec(spec *PodSpec, p *field.Path) field.ErrorList {
	return validatePodSpec(spec, true, p)
}

// validatePodSpec checks spec; isPod is false for a template, where a host
// port left 0 on the host network is allowed (it is defaulted on the pod).
func validatePodSpec(spec *PodSpec, isPod bool, p *field.Path) field.ErrorList {
	vols, errs := validateVolumes(spec.Volumes, p.Child("volumes"))
	grace := int64(DefaultTerminationGracePeriodSeconds)
	if spec.TerminationGracePeriodSeconds != nil {
		grace = *spec.TerminationGracePeriodSeconds
	}
	ctx := containerContext{volumes: vols, gracePeriod: grace, restartPolicy: spec.RestartPolicy}
	names := map[string]bool{}
	errs = append(errs, validateContainers(spec.Containers, ctx, names, p.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, ctx, names, p.Child("initContainers"))...)
	errs = append(errs, validateEphemeralContainers(spec, ctx, names, p.Child("ephemeralContainers"))...)
	errs = append(errs, validateEnum(spec.RestartPolicy, true, p.Child("restartPolicy"),
		RestartPolicyAlways, RestartPolicyOnFailure, RestartPolicyNever)...)
	errs = append(errs, validateEnum(spec.DNSPolicy, true, p.Child("dnsPolicy"),
		DNSClusterFirstWithHostNet, DNSClusterFirst, DNSDefault, DNSNone)...)
	errs = append(errs, validation.ValidateLabels(spec.NodeSelector, p.Child("nodeSelector"))...)
	errs = append(errs, validatePodSecurityContext(spec.SecurityContext, p.Child("securityContext"))...)
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace && spec.HostPID {
		errs = append(errs, field.Invalid(p.Child("securityContext", "shareProcessNamespace"), true,
			"ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	errs = append(errs, validateAffinity(spec.Affinity, p.Child("affinity"))...)
	errs = append(errs, validatePodDNSConfig(spec.DNSConfig, spec.DNSPolicy, p.Child("dnsConfig"))...)
	errs = append(errs, ValidateTolerations(spec.Tolerations, p.Child("tolerations"))...)
	errs = append(errs, validateTopologySpread(spec.TopologySpreadConstraints, p.Child("topologySpreadConstraints"))...)
	errs = append(errs, validatePodNames(spec, p)...)
	errs = append(errs, validatePodNumbers(spec, p)...)
	errs = append(errs, validateHostAliases(spec.HostAliases, p.Child("hostAliases"))...)
	for i, g := range spec.ReadinessGates {
		errs = append(errs, validateQualifiedName(string(g.ConditionType), p.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	if spec.Overhead != nil {
		errs = append(errs, validateResourceRequirements(&ResourceRequirements{Limits: spec.Overhead}, p.Child("overhead"))...)
	}
	errs = append(errs, validateHostNetworkPorts(spec, isPod, p.Child("containers"))...)
	errs = append(errs, validateHostUsers(spec, p)...)
	errs = append(errs, validateSchedulingGates(spec.SchedulingGates, p.Child("schedulingGates"))...)
	if spec.PreemptionPolicy != nil {
		errs = append(errs, validateEnum(*spec.PreemptionPolicy, true, p.Child("preemptionPolicy"),
			PreemptLowerPriority, PreemptNever)...)
	}
	return errs
}

// validateHostNetworkPorts requires host ports equal to container ports on
// the host network (a template may leave them 0).
func validateHostNetworkPorts(spec *PodSpec, isPod bool, p *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i, c := range spec.Containers {
		for j, port := range c.Ports {
			if hp, cp := port.HostPort, port.ContainerPort; (isPod || hp != 0) && hp != cp {
				errs = append(errs, field.Invalid(p.Index(i).Child("ports").Index(j).Child("hostPort"), hp,
					"must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// validateHostUsers forbids host namespaces in a user-namespaced pod. The
// paths are Kubernetes' own, capitals included.
func validateHostUsers(spec *PodSpec, p *field.Path) field.ErrorList {
	if spec.HostUsers == nil || *spec.HostUsers {
		return nil
	}
	const why = "when `pod.Spec.HostUsers` is false"
	var errs field.ErrorList
	if spec.HostNetwork {
		errs = append(errs, field.Forbidden(p.Child("hostNetwork"), why))
	}
	if spec.HostPID {
		errs = append(errs, field.Forbidden(p.Child("HostPID"), why))
	}
	if spec.HostIPC {
		errs = append(errs, field.Forbidden(p.Child("HostIPC"), why))
	}
	return errs
}

func validateSchedulingGates(gates []PodSchedulingGate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, g := range gates {
		errs = append(errs, validateQualifiedName(g.Name, p.Index(i))...)
		if seen[g.Name] {
			errs = append(errs, field.Duplicate(p.Index(i), g.Name))
		}
		seen[g.Name] = true
	}
	return errs
}

// validatePodNames checks the names a pod spec refers to.
func validatePodNames(spec *PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range []struct {
		value string
		path  *field.Path
		label bool
	}{
		{spec.ServiceAccountName, p.Child("serviceAccountName"), false},
		{spec.NodeName, p.Child("nodeName"), false},
		{spec.SchedulerName, p.Child("schedulerName"), false},
		{spec.PriorityClassName, p.Child("priorityClassName"), false},
		{spec.Hostname, p.Child("hostname"), true},
		{spec.Subdomain, p.Child("subdomain"), true},
	} {
		switch {
		case n.value == "":
		case n.label:
			errs = append(errs, validateDNS1123Label(n.value, n.path)...)
		default:
			errs = append(errs, validateDNS1123Subdomain(n.value, n.path)...)
		}
	}
	if spec.RuntimeClassName != nil {
		errs = append(errs, validateDNS1123Subdomain(*spec.RuntimeClassName, p.Child("runtimeClassName"))...)
	}
	return errs
}

// validatePodNumbers checks a pod spec's durations.
func validatePodNumbers(spec *PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v := spec.ActiveDeadlineSeconds; v != nil && (*v < 1 || *v > math.MaxInt32) {
		errs = append(errs, field.Invalid(p.Child("activeDeadlineSeconds"), *v, inclusiveRangeError(1, math.MaxInt32)))
	}
	if v := spec.TerminationGracePeriodSeconds; v != nil {
		errs = append(errs, validateNonnegative(*v, p.Child("terminationGracePeriodSeconds"))...)
	}
	return errs
}

// ValidateTolerations checks tolerations as Kubernetes does: keys are
// qualified names, an empty key needs operator Exists, tolerationSeconds
// needs effect NoExecute, Exists takes no value, Equal a label value.
func ValidateTolerations(tolerations []Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		ip := p.Index(i)
		if t.Key != "" {
			errs = append(errs, validateQualifiedName(t.Key, ip.Child("key"))...)
		}
		if t.Key == "" && t.Operator != TolerationOpExists {
			errs = append(errs, field.Invalid(ip.Child("operator"), string(t.Operator),
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != TaintEffectNoExecute {
			errs = append(errs, field.Invalid(ip.Child("effect"), string(t.Effect),
				"effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(ip.Child("operator"), string(t.Operator),
				[]string{string(TolerationOpEqual), string(TolerationOpExists)}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, ip.Child("effect"))...)
		}
	}
	return errs
}

func validateTaintEffect(e TaintEffect, p *field.Path) field.ErrorList {
	return validateEnum(e, true, p, TaintEffectNoSchedule, TaintEffectPreferNoSchedule, TaintEffectNoExecute)
}

const maxDNSNameservers, maxDNSSearchPaths, maxDNSSearchListChars = 3, 32, 2048

func validatePodDNSConfig(c *PodDNSConfig, policy DNSPolicy, p *field.Path) field.ErrorList {
	if policy == DNSNone {
		if c == nil {
			return field.ErrorList{field.Required(p, "must provide `dnsConfig` when `dnsPolicy` is None")}
		}
		if len(c.Nameservers) == 0 {
			return field.ErrorList{field.Required(p.Child("nameservers"),
				"must provide at least one DNS nameserver when `dnsPolicy` is None")}
		}
	}
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if len(c.Nameservers) > maxDNSNameservers {
		errs = append(errs, field.Invalid(p.Child("nameservers"), strings.Join(c.Nameservers, " "),
			fmt.Sprintf("must not have more than %d nameservers", maxDNSNameservers)))
	}
	for i, ns := range c.Nameservers {
		errs = append(errs, invalidAll(p.Child("nameservers").Index(i), ns, validation.IsValidIP(ns))...)
	}
	if len(c.Searches) > maxDNSSearchPaths {
		errs = append(errs, field.Invalid(p.Child("searches"), strings.Join(c.Searches, " "),
			fmt.Sprintf("must not have more than %d search paths", maxDNSSearchPaths)))
	}
	if n := len(strings.Join(c.Searches, " ")); n > maxDNSSearchListChars {
		errs = append(errs, field.Invalid(p.Child("searches"), strings.Join(c.Searches, " "),
			fmt.Sprintf("must not have more than %d characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, s := range c.Searches {
		errs = append(errs, validateDNS1123Subdomain(strings.TrimSuffix(s, "."), p.Child("searches").Index(i))...)
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, field.Required(p.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

func validateHostAliases(aliases []HostAlias, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, a := range aliases {
		ip := p.Index(i)
		errs = append(errs, invalidAll(ip.Child("ip"), a.IP, validation.IsValidIP(a.IP))...)
		for j, h := range a.Hostnames {
			errs = append(errs, validateDNS1123Subdomain(h, ip.Child("hostnames").Index(j))...)
		}
	}
	return errs
}

func validateTopologySpread(cs []TopologySpreadConstraint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		ip := p.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), c.MaxSkew, isNotPositiveErrorMsg))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		}
		if c.WhenUnsatisfiable != DoNotSchedule && c.WhenUnsatisfiable != ScheduleAnyway {
			errs = append(errs, field.NotSupported(ip.Child("whenUnsatisfiable"), c.WhenUnsatisfiable,
				[]string{DoNotSchedule, ScheduleAnyway}))
		}
		for _, later := range cs[i+1:] {
			if later.TopologyKey == c.TopologyKey && later.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(ip.Child("{topologyKey, whenUnsatisfiable}"),
					fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		errs = append(errs, validateMinDomains(c, ip.Child("minDomains"))...)
		if c.LabelSelector != nil {
			errs = append(errs, validation.ValidateLabelSelector(c.LabelSelector, ip.Child("labelSelector"))...)
		}
		errs = append(errs, validateNodeInclusionPolicy(c.NodeAffinityPolicy, ip.Child("nodeAffinityPolicy"))...)
		errs = append(errs, validateNodeInclusionPolicy(c.NodeTaintsPolicy, ip.Child("nodeTaintsPolicy"))...)
		errs = append(errs, validateMatchLabelKeys(c, ip.Child("matchLabelKeys"))...)
	}
	return errs
}

func validateNodeInclusionPolicy(policy *string, p *field.Path) field.ErrorList {
	if policy == nil || *policy == NodeInclusionPolicyHonor || *policy == NodeInclusionPolicyIgnore {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, *policy, []string{NodeInclusionPolicyHonor, NodeInclusionPolicyIgnore})}
}

// validateMatchLabelKeys checks matchLabelKeys as Kubernetes does: label
// keys, only with a labelSelector, and none of them in that selector.
func validateMatchLabelKeys(c TopologySpreadConstraint, p *field.Path) field.ErrorList {
	if len(c.MatchLabelKeys) == 0 {
		return nil
	}
	if c.LabelSelector == nil {
		return field.ErrorList{field.Forbidden(p, "must not be specified when labelSelector is not set")}
	}
	inSelector := map[string]bool{}
	for k := range c.LabelSelector.MatchLabels {
		inSelector[k] = true
	}
	for _, e := range c.LabelSelector.MatchExpressions {
		inSelector[e.Key] = true
	}
	var errs field.ErrorList
	for i, k := range c.MatchLabelKeys {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p.Index(i), k, msg))
		}
		if inSelector[k] {
			errs = append(errs, field.Invalid(p.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
		}
	}
	return errs
}

func validateMinDomains(c TopologySpreadConstraint, p *field.Path) field.ErrorList {
	if c.MinDomains == nil {
		return nil
	}
	var errs field.ErrorList
	if *c.MinDomains <= 0 {
		errs = append(errs, field.Invalid(p, *c.MinDomains, isNotPositiveErrorMsg))
	}
	if c.WhenUnsatisfiable != DoNotSchedule {
		errs = append(errs, field.Invalid(p, *c.MinDomains, fmt.Sprintf(
			"can only use minDomains if whenUnsatisfiable=%s, not %s", DoNotSchedule, c.WhenUnsatisfiable)))
	}
	return errs
}

// Affinity ------------------------------------------------------------------

func validateAffinity(a *Affinity, p *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			errs = append(errs, ValidateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution,
				np.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			ip := np.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, validateWeight(t.Weight, ip.Child("weight"))...)
			errs = append(errs, validateNodeSelectorTerm(t.Preference, ip.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution,
			pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution,
			pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))...)
	}
	return errs
}

func validateWeight(w int32, p *field.Path) field.ErrorList {
	if w <= 0 || w > 100 {
		return field.ErrorList{field.Invalid(p, w, "must be in the range 1-100")}
	}
	return nil
}

func validatePodAffinityTerms(req []PodAffinityTerm, pref []WeightedPodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range req {
		errs = append(errs, validatePodAffinityTerm(&req[i], p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i := range pref {
		ip := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, validateWeight(pref[i].Weight, ip.Child("weight"))...)
		errs = append(errs, validatePodAffinityTerm(&pref[i].PodAffinityTerm, ip.Child("podAffinityTerm"))...)
	}
	return errs
}

func validatePodAffinityTerm(t *PodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.LabelSelector != nil {
		errs = append(errs, validation.ValidateLabelSelector(t.LabelSelector, p.Child("labelSelector"))...)
	}
	if t.NamespaceSelector != nil {
		errs = append(errs, validation.ValidateLabelSelector(t.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	for i, ns := range t.Namespaces {
		errs = append(errs, validateDNS1123Label(ns, p.Child("namespaces").Index(i))...)
	}
	if t.TopologyKey == "" {
		return append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, validateQualifiedName(t.TopologyKey, p.Child("topologyKey"))...)
}

// ValidateNodeSelector checks a node selector: at least one term, and
// every requirement well formed.
func ValidateNodeSelector(s *NodeSelector, p *field.Path) field.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range s.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(t, tp.Index(i))...)
	}
	return errs
}

func validateNodeSelectorTerm(t NodeSelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		ip := p.Child("matchExpressions").Index(i)
		errs = append(errs, validateNodeSelectorRequirement(r, ip)...)
		errs = append(errs, validateQualifiedName(r.Key, ip.Child("key"))...)
	}
	for i, r := range t.MatchFields {
		ip := p.Child("matchFields").Index(i)
		if r.Key != "metadata.name" {
			errs = append(errs, field.NotSupported(ip.Child("key"), r.Key, []string{"metadata.name"}))
		}
		if r.Operator != NodeSelectorOpIn && r.Operator != NodeSelectorOpNotIn {
			errs = append(errs, field.Invalid(ip.Child("operator"), string(r.Operator), "not a valid selector operator"))
		} else if len(r.Values) != 1 {
			errs = append(errs, field.Required(ip.Child("values"),
				"must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	}
	return errs
}

func validateNodeSelectorRequirement(r NodeSelectorRequirement, p *field.Path) field.ErrorList {
	switch r.Operator {
	case NodeSelectorOpIn, NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'")}
		}
	case NodeSelectorOpExists, NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return field.ErrorList{field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")}
		}
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")}
		}
	default:
		return field.ErrorList{field.Invalid(p.Child("operator"), string(r.Operator), "not a valid selector operator")}
	}
	return nil
}

// podConditionTypes are the condition types the kubelet owns.
var podConditionTypes = []PodConditionType{PodScheduled, PodReadyToStartContainers, PodInitialized,
	ContainersReady, PodReady, DisruptionTarget}

func validatePodConditions(cs []PodCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		ip := p.Index(i)
		known := false
		for _, t := range podConditionTypes {
			known = known || t == c.Type
		}
		if !known {
			errs = append(errs, validateQualifiedName(string(c.Type), ip.Child("Type"))...)
		}
		errs = append(errs, validateEnum(c.Status, true, ip.Child("status"),
			meta.ConditionTrue, meta.ConditionFalse, meta.ConditionUnknown)...)
	}
	return errs
}
