package core

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// podUpdateForbidden is the start of the error for a pod update that
// touches an immutable spec field, word for word as Kubernetes prints it.
const podUpdateForbidden = "pod updates may not change fields other than `spec.containers[*].image`," +
	"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// ValidatePodUpdate checks newPod as a replacement for oldPod. newPod must
// be valid on its own (ValidatePod), its metadata may change only as
// metadata may, and of the spec only these may change: container and init
// container images, activeDeadlineSeconds (set, or lowered), tolerations
// (additions, and tolerationSeconds of existing ones),
// terminationGracePeriodSeconds (from negative to 1), and scheduling gates
// (removals). Anything else yields one Forbidden error on "spec" whose
// message lists the changed fields. Neither pod is modified.
func ValidatePodUpdate(newPod, oldPod *Pod) field.ErrorList {
	mp, sp := field.NewPath("metadata"), field.NewPath("spec")
	errs := validation.ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, mp)
	errs = append(errs, ValidatePod(newPod)...)
	errs = append(errs, validateMirrorAnnotationUpdate(newPod, oldPod, mp.Child("annotations"))...)
	if len(newPod.Spec.Containers) != len(oldPod.Spec.Containers) {
		return append(errs, field.Forbidden(sp.Child("containers"), "pod updates may not add or remove containers"))
	}
	if len(newPod.Spec.InitContainers) != len(oldPod.Spec.InitContainers) {
		return append(errs, field.Forbidden(sp.Child("initContainers"), "pod updates may not add or remove containers"))
	}
	errs = append(errs, validateActiveDeadlineUpdate(newPod.Spec.ActiveDeadlineSeconds,
		oldPod.Spec.ActiveDeadlineSeconds, sp.Child("activeDeadlineSeconds"))...)
	errs = append(errs, validateOnlyAddedTolerations(newPod.Spec.Tolerations, oldPod.Spec.Tolerations, sp.Child("tolerations"))...)
	errs = append(errs, validateSchedulingGatesUpdate(newPod.Spec.SchedulingGates, oldPod.Spec.SchedulingGates,
		sp.Child("schedulingGates"))...)

	munged := mungeMutablePodSpec(&newPod.Spec, &oldPod.Spec)
	if d := specDiff(&oldPod.Spec, munged); d != "" {
		errs = append(errs, field.Forbidden(sp, podUpdateForbidden+"\n"+d))
	}
	return errs
}

// mungeMutablePodSpec returns a copy of newSpec with every field that may
// change set to its value in oldSpec.
func mungeMutablePodSpec(newSpec, oldSpec *PodSpec) *PodSpec {
	m := *newSpec
	m.Containers = slices.Clone(newSpec.Containers)
	for i := range m.Containers {
		m.Containers[i].Image = oldSpec.Containers[i].Image
	}
	m.InitContainers = slices.Clone(newSpec.InitContainers)
	for i := range m.InitContainers {
		m.InitContainers[i].Image = oldSpec.InitContainers[i].Image
	}
	m.ActiveDeadlineSeconds = oldSpec.ActiveDeadlineSeconds
	m.Tolerations = oldSpec.Tolerations
	if g := newSpec.TerminationGracePeriodSeconds; g != nil && *g == 1 {
		if og := oldSpec.TerminationGracePeriodSeconds; og != nil && *og < 0 {
			m.TerminationGracePeriodSeconds = og
		}
	}
	m.SchedulingGates = oldSpec.SchedulingGates
	return &m
}

func validateMirrorAnnotationUpdate(newPod, oldPod *Pod, p *field.Path) field.ErrorList {
	nv, nok := newPod.Annotations[AnnotationMirrorPod]
	ov, ook := oldPod.Annotations[AnnotationMirrorPod]
	switch {
	case ook && (!nok || nv != ov):
		return field.ErrorList{field.Forbidden(p.Key(AnnotationMirrorPod), "may not remove or update mirror pod annotation")}
	case nok && !ook:
		return field.ErrorList{field.Forbidden(p.Key(AnnotationMirrorPod), "may not add mirror pod annotation")}
	}
	return nil
}

func validateActiveDeadlineUpdate(newV, oldV *int64, p *field.Path) field.ErrorList {
	switch {
	case newV == nil && oldV != nil:
		return field.ErrorList{field.Invalid(p, nil, "must not update from a positive integer to nil value")}
	case newV == nil:
		return nil
	case *newV < 0 || *newV > math.MaxInt32:
		return field.ErrorList{field.Invalid(p, *newV, inclusiveRangeError(0, math.MaxInt32))}
	case oldV != nil && *oldV < *newV:
		return field.ErrorList{field.Invalid(p, *newV, "must be less than or equal to previous value")}
	}
	return nil
}

// validateOnlyAddedTolerations allows new tolerations and changed
// tolerationSeconds on existing ones, nothing else.
func validateOnlyAddedTolerations(newT, oldT []Toleration, p *field.Path) field.ErrorList {
	for _, o := range oldT {
		found := false
		for _, n := range newT {
			o.TolerationSeconds = n.TolerationSeconds
			if reflect.DeepEqual(o, n) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(p, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

func validateSchedulingGatesUpdate(newG, oldG []PodSchedulingGate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, g := range newG {
		if !slices.Contains(oldG, g) {
			errs = append(errs, field.Forbidden(p.Index(i),
				fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name)))
		}
	}
	return errs
}

// specDiff describes how two pod specs differ, one changed field a line
// ("- spec.restartPolicy: "Always"" then "+ ..."), or "" when they are
// semantically equal (compared through their JSON form).
func specDiff(oldSpec, newSpec *PodSpec) string {
	var o, n any
	ob, _ := json.Marshal(oldSpec)
	nb, _ := json.Marshal(newSpec)
	if string(ob) == string(nb) {
		return ""
	}
	_ = json.Unmarshal(ob, &o)
	_ = json.Unmarshal(nb, &n)
	var lines []string
	collectDiff("spec", o, n, &lines)
	const maxLines = 20
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("  ... and %d more", len(lines)-maxLines))
	}
	return strings.Join(lines, "\n")
}

func collectDiff(path string, o, n any, lines *[]string) {
	om, ook := o.(map[string]any)
	nm, nok := n.(map[string]any)
	if ook && nok {
		keys := map[string]bool{}
		for k := range om {
			keys[k] = true
		}
		for k := range nm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			collectDiff(path+"."+k, om[k], nm[k], lines)
		}
		return
	}
	ol, ook := o.([]any)
	nl, nok := n.([]any)
	if ook && nok && len(ol) == len(nl) {
		for i := range ol {
			collectDiff(fmt.Sprintf("%s[%d]", path, i), ol[i], nl[i], lines)
		}
		return
	}
	if reflect.DeepEqual(o, n) {
		return
	}
	if o != nil {
		*lines = append(*lines, "- "+path+": "+diffValue(o))
	}
	if n != nil {
		*lines = append(*lines, "+ "+path+": "+diffValue(n))
	}
}

// diffValue renders v as JSON, cut to a readable length.
func diffValue(v any) string {
	const maxLen = 120
	b, _ := json.Marshal(v)
	if len(b) > maxLen {
		return string(b[:maxLen]) + "..."
	}
	return string(b)
}

// ValidatePodStatusUpdate checks newPod as a status update of oldPod (the
// pods/status subresource): metadata changes as metadata may, valid
// conditions, the node name unchanged, a valid nominated node name, pod
// IPs that are IPs and agree with podIP, no terminal phase left, and no
// terminated container restarted when the restart policy forbids it. The
// spec is not checked: the status subresource ignores it.
func ValidatePodStatusUpdate(newPod, oldPod *Pod) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&newPod.ObjectMeta, &oldPod.ObjectMeta, field.NewPath("metadata"))
	sp := field.NewPath("status")
	errs = append(errs, validatePodConditions(newPod.Status.Conditions, sp.Child("conditions"))...)
	if newPod.Spec.NodeName != oldPod.Spec.NodeName {
		errs = append(errs, field.Forbidden(sp.Child("nodeName"), "may not be changed directly"))
	}
	if n := newPod.Status.NominatedNodeName; n != oldPod.Status.NominatedNodeName && n != "" {
		errs = append(errs, validateDNS1123Subdomain(n, sp.Child("nominatedNodeName"))...)
	}
	if IsPodTerminal(oldPod) && newPod.Status.Phase != oldPod.Status.Phase {
		errs = append(errs, field.Forbidden(sp.Child("phase"), fmt.Sprintf("may not be changed from %s to %s",
			oldPod.Status.Phase, newPod.Status.Phase)))
	}
	errs = append(errs, validatePhase(newPod.Status.Phase, sp.Child("phase"))...)
	policy := oldPod.Spec.RestartPolicy
	errs = append(errs, validateContainerStateTransition(newPod.Status.ContainerStatuses,
		oldPod.Status.ContainerStatuses, sp.Child("containerStatuses"), policy)...)
	errs = append(errs, validateContainerStateTransition(newPod.Status.InitContainerStatuses,
		oldPod.Status.InitContainerStatuses, sp.Child("initContainerStatuses"), policy)...)
	errs = append(errs, validatePodIPs(&newPod.Status, sp)...)
	return errs
}

func validatePhase(ph PodPhase, p *field.Path) field.ErrorList {
	return validateEnum(ph, false, p, PodPending, PodRunning, PodSucceeded, PodFailed, PodUnknown)
}

// validateContainerStateTransition forbids a terminated container from
// running again unless the restart policy allows it.
func validateContainerStateTransition(newS, oldS []ContainerStatus, p *field.Path, policy RestartPolicy) field.ErrorList {
	if policy == RestartPolicyAlways {
		return nil
	}
	var errs field.ErrorList
	for i, o := range oldS {
		if o.State.Terminated == nil || (o.State.Terminated.ExitCode != 0 && policy == RestartPolicyOnFailure) {
			continue
		}
		for _, n := range newS {
			if n.Name == o.Name && n.State.Terminated == nil {
				errs = append(errs, field.Forbidden(p.Index(i).Child("state"), "may not be transitioned to non-terminated state"))
			}
		}
	}
	return errs
}

func validatePodIPs(s *PodStatus, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ips := p.Child("podIPs")
	if len(s.PodIPs) > 0 && s.PodIPs[0].IP != s.PodIP {
		errs = append(errs, field.Invalid(ips.Index(0).Child("ip"), s.PodIPs[0].IP, "must be equal to podIP"))
	}
	if len(s.PodIPs) > 2 {
		errs = append(errs, field.TooMany(ips, len(s.PodIPs), 2))
	}
	for i, ip := range s.PodIPs {
		errs = append(errs, invalidAll(ips.Index(i).Child("ip"), ip.IP, validation.IsValidIP(ip.IP))...)
	}
	hips := p.Child("hostIPs")
	if len(s.HostIPs) > 0 && s.HostIPs[0].IP != s.HostIP {
		errs = append(errs, field.Invalid(hips.Index(0).Child("ip"), s.HostIPs[0].IP, "must be equal to hostIP"))
	}
	for i, ip := range s.HostIPs {
		errs = append(errs, invalidAll(hips.Index(i).Child("ip"), ip.IP, validation.IsValidIP(ip.IP))...)
	}
	return errs
}
