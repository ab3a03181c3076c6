package apps

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// ValidateStatefulSet checks a new, defaulted StatefulSet. Its name must be
// a DNS label, since each pod's hostname is "<name>-<ordinal>".
func ValidateStatefulSet(s *StatefulSet) field.ErrorList {
	errs := validation.ValidateObjectMeta(&s.ObjectMeta, true, validation.NameIsDNSLabel, field.NewPath("metadata"))
	return append(errs, ValidateStatefulSetSpec(&s.Spec, field.NewPath("spec"))...)
}

// ValidateStatefulSetUpdate checks s as a replacement for old: only
// replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
// persistentVolumeClaimRetentionPolicy and minReadySeconds may change.
func ValidateStatefulSetUpdate(s, old *StatefulSet) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateStatefulSetSpec(&s.Spec, field.NewPath("spec"))...)
	rest := meta.DeepCopy(s.Spec)
	rest.Replicas, rest.Template, rest.UpdateStrategy = old.Spec.Replicas, old.Spec.Template, old.Spec.UpdateStrategy
	rest.MinReadySeconds, rest.Ordinals = old.Spec.MinReadySeconds, old.Spec.Ordinals
	rest.RevisionHistoryLimit = old.Spec.RevisionHistoryLimit
	rest.PersistentVolumeClaimRetentionPolicy = old.Spec.PersistentVolumeClaimRetentionPolicy
	if !reflect.DeepEqual(specJSON(rest), specJSON(old.Spec)) {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), "updates to statefulset spec for fields other than "+
			"'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', "+
			"'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
	}
	return errs
}

// specJSON normalises a spec through its wire form, so nil and empty
// collections compare equal as Kubernetes' semantic equality has them.
func specJSON(s StatefulSetSpec) any {
	return meta.DeepCopy[any](s)
}

// ValidateStatefulSetSpec checks spec at p.
func ValidateStatefulSetSpec(spec *StatefulSetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch spec.PodManagementPolicy {
	case "":
		errs = append(errs, field.Required(p.Child("podManagementPolicy"), ""))
	case OrderedReadyPodManagement, ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(p.Child("podManagementPolicy"), string(spec.PodManagementPolicy),
			fmt.Sprintf("must be '%s' or '%s'", OrderedReadyPodManagement, ParallelPodManagement)))
	}
	errs = append(errs, validateStatefulSetUpdateStrategy(&spec.UpdateStrategy, p.Child("updateStrategy"))...)
	errs = append(errs, validateRetentionPolicy(spec.PersistentVolumeClaimRetentionPolicy, p.Child("persistentVolumeClaimRetentionPolicy"))...)
	errs = append(errs, validateNonnegative32(spec.Replicas, p.Child("replicas"))...)
	if spec.Ordinals != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(spec.Ordinals.Start), p.Child("ordinals", "start"))...)
	}
	errs = append(errs, validation.ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))...)
	errs = append(errs, validateNonnegative32(spec.RevisionHistoryLimit, p.Child("revisionHistoryLimit"))...)
	errs = append(errs, validateSelector(spec.Selector, "statefulset", p.Child("selector"))...)
	tmpl := templateWithClaims(spec)
	errs = append(errs, validateTemplate(&tmpl, spec.Selector, "StatefulSet", p.Child("template"))...)
	return append(errs, validateClaimTemplates(spec, p.Child("volumeClaimTemplates"))...)
}

// templateWithClaims returns a copy of the pod template with a volume for
// each volume claim template the pod does not already declare, as the
// StatefulSet controller adds them, so that mounts of claim templates
// validate. (Kubernetes skips pod validation of StatefulSet templates for
// this reason; orkit validates the union instead.)
func templateWithClaims(spec *StatefulSetSpec) core.PodTemplateSpec {
	t := spec.Template
	if len(spec.VolumeClaimTemplates) == 0 {
		return t
	}
	have := map[string]bool{}
	for _, v := range t.Spec.Volumes {
		have[v.Name] = true
	}
	vols := slices.Clone(t.Spec.Volumes)
	for _, c := range spec.VolumeClaimTemplates {
		if c.Name == "" || have[c.Name] {
			continue
		}
		have[c.Name] = true
		vols = append(vols, core.Volume{Name: c.Name, VolumeSource: core.VolumeSource{
			PersistentVolumeClaim: &core.PersistentVolumeClaimVolumeSource{ClaimName: c.Name}}})
	}
	t.Spec.Volumes = vols
	return t
}

func validateStatefulSetUpdateStrategy(s *StatefulSetUpdateStrategy, p *field.Path) field.ErrorList {
	switch s.Type {
	case "":
		return field.ErrorList{field.Required(p, "")}
	case OnDeleteStatefulSetStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Invalid(p.Child("rollingUpdate"), s.RollingUpdate,
				fmt.Sprintf("only allowed for updateStrategy '%s'", RollingUpdateStatefulSetStrategyType))}
		}
		return nil
	case RollingUpdateStatefulSetStrategyType:
		if s.RollingUpdate == nil {
			return nil
		}
		ru, rp := s.RollingUpdate, p.Child("rollingUpdate")
		errs := validateNonnegative32(ru.Partition, rp.Child("partition"))
		if ru.MaxUnavailable != nil {
			errs = append(errs, ValidatePositiveIntOrPercent(*ru.MaxUnavailable, rp.Child("maxUnavailable"))...)
			if intOrPercentValue(ru.MaxUnavailable) == 0 {
				errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), ru.MaxUnavailable.String(), "cannot be 0"))
			}
			errs = append(errs, isNotMoreThan100Percent(ru.MaxUnavailable, rp.Child("maxUnavailable"))...)
		}
		return errs
	default:
		return field.ErrorList{field.Invalid(p, string(s.Type), fmt.Sprintf("must be '%s' or '%s'",
			RollingUpdateStatefulSetStrategyType, OnDeleteStatefulSetStrategyType))}
	}
}

func validateRetentionPolicy(rp *StatefulSetPersistentVolumeClaimRetentionPolicy, p *field.Path) field.ErrorList {
	if rp == nil {
		return nil
	}
	valid := []string{string(RetainPersistentVolumeClaimRetentionPolicyType), string(DeletePersistentVolumeClaimRetentionPolicyType)}
	var errs field.ErrorList
	for _, f := range []struct {
		name string
		v    PersistentVolumeClaimRetentionPolicyType
	}{{"whenDeleted", rp.WhenDeleted}, {"whenScaled", rp.WhenScaled}} {
		if f.v != RetainPersistentVolumeClaimRetentionPolicyType && f.v != DeletePersistentVolumeClaimRetentionPolicyType {
			errs = append(errs, field.NotSupported(p.Child(f.name), string(f.v), valid))
		}
	}
	return errs
}

// validateClaimTemplates checks that every volume claim template has a
// unique DNS-subdomain name (the claim is named "<template>-<set>-<ordinal>").
func validateClaimTemplates(spec *StatefulSetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, c := range spec.VolumeClaimTemplates {
		np := p.Index(i).Child("metadata", "name")
		switch {
		case c.Name == "":
			errs = append(errs, field.Required(np, ""))
		case seen[c.Name]:
			errs = append(errs, field.Duplicate(np, c.Name))
		}
		for _, msg := range validation.IsDNS1123Subdomain(c.Name) {
			if c.Name != "" {
				errs = append(errs, field.Invalid(np, c.Name, msg))
			}
		}
		seen[c.Name] = true
	}
	return errs
}

// ValidateStatefulSetStatus checks a status written through the status
// subresource.
func ValidateStatefulSetStatus(st *StatefulSetStatus, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(st.ObservedGeneration, p.Child("observedGeneration"))
	for _, c := range []struct {
		name string
		v    int32
	}{
		{"replicas", st.Replicas}, {"readyReplicas", st.ReadyReplicas}, {"currentReplicas", st.CurrentReplicas},
		{"updatedReplicas", st.UpdatedReplicas}, {"availableReplicas", st.AvailableReplicas},
	} {
		errs = append(errs, validation.ValidateNonnegativeField(int64(c.v), p.Child(c.name))...)
	}
	errs = append(errs, validateNonnegative32(st.CollisionCount, p.Child("collisionCount"))...)
	errs = statusNotAbove(errs, st.ReadyReplicas, st.Replicas, p.Child("readyReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.CurrentReplicas, st.Replicas, p.Child("currentReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.UpdatedReplicas, st.Replicas, p.Child("updatedReplicas"), "status.replicas")
	errs = statusNotAbove(errs, st.AvailableReplicas, st.Replicas, p.Child("availableReplicas"), "status.replicas")
	return statusNotAbove(errs, st.AvailableReplicas, st.ReadyReplicas, p.Child("availableReplicas"), "status.readyReplicas")
}
