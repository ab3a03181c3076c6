package core

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/validation"
)

// ValidateReplicationController checks a new, defaulted
// ReplicationController as kube-apiserver does: a DNS-subdomain name,
// replicas and minReadySeconds ≥ 0, a non-empty selector, and a template
// whose labels the selector matches, restartPolicy Always and no
// activeDeadlineSeconds.
func ValidateReplicationController(rc *ReplicationController) field.ErrorList {
	errs := validation.ValidateObjectMeta(&rc.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateReplicationControllerSpec(&rc.Spec, field.NewPath("spec"))...)
}

// ValidateReplicationControllerUpdate checks rc as a replacement for old.
// Unlike a ReplicaSet's, the selector may change.
func ValidateReplicationControllerUpdate(rc, old *ReplicationController) field.ErrorList {
	errs := metaUpdate(&rc.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateReplicationControllerSpec(&rc.Spec, field.NewPath("spec"))...)
}

// ValidateReplicationControllerStatus checks a status written through the
// status subresource: every count ≥ 0, and no count above the replicas
// (nor available above ready).
func ValidateReplicationControllerStatus(st *ReplicationControllerStatus, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(int64(st.Replicas), p.Child("replicas"))
	errs = append(errs, validation.ValidateNonnegativeField(int64(st.FullyLabeledReplicas), p.Child("fullyLabeledReplicas"))...)
	errs = append(errs, validation.ValidateNonnegativeField(int64(st.ReadyReplicas), p.Child("readyReplicas"))...)
	errs = append(errs, validation.ValidateNonnegativeField(int64(st.AvailableReplicas), p.Child("availableReplicas"))...)
	errs = append(errs, validation.ValidateNonnegativeField(st.ObservedGeneration, p.Child("observedGeneration"))...)
	notAbove := func(v, limit int32, fp *field.Path, what string) {
		if v > limit {
			errs = append(errs, field.Invalid(fp, v, "cannot be greater than "+what))
		}
	}
	notAbove(st.FullyLabeledReplicas, st.Replicas, p.Child("fullyLabeledReplicas"), "status.replicas")
	notAbove(st.ReadyReplicas, st.Replicas, p.Child("readyReplicas"), "status.replicas")
	notAbove(st.AvailableReplicas, st.Replicas, p.Child("availableReplicas"), "status.replicas")
	notAbove(st.AvailableReplicas, st.ReadyReplicas, p.Child("availableReplicas"), "readyReplicas")
	return errs
}

func validateReplicationControllerSpec(spec *ReplicationControllerSpec, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(int64(spec.MinReadySeconds), p.Child("minReadySeconds"))
	if len(spec.Selector) == 0 {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	} else {
		errs = append(errs, validation.ValidateLabels(spec.Selector, p.Child("selector"))...)
	}
	if spec.Replicas != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*spec.Replicas), p.Child("replicas"))...)
	}
	return append(errs, validateRCTemplate(spec.Template, spec.Selector, p.Child("template"))...)
}

func validateRCTemplate(t *PodTemplateSpec, selector map[string]string, p *field.Path) field.ErrorList {
	if t == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	if len(selector) > 0 && !labels.SelectorFromSet(selector).Matches(labels.Set(t.Labels)) {
		errs = append(errs, field.Invalid(p.Child("metadata", "labels"), t.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, ValidatePodTemplateSpec(t, p)...)
	if t.Spec.RestartPolicy != RestartPolicyAlways {
		errs = append(errs, field.NotSupported(p.Child("spec", "restartPolicy"), string(t.Spec.RestartPolicy),
			[]string{string(RestartPolicyAlways)}))
	}
	if t.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(p.Child("spec", "activeDeadlineSeconds"),
			"activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

// ValidatePodTemplate checks a new PodTemplate: a DNS-subdomain name and a
// valid pod template (any restart policy).
func ValidatePodTemplate(t *PodTemplate) field.ErrorList {
	errs := validation.ValidateObjectMeta(&t.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}

// ValidatePodTemplateUpdate checks t as a replacement for old.
func ValidatePodTemplateUpdate(t, old *PodTemplate) field.ErrorList {
	errs := metaUpdate(&t.ObjectMeta, &old.ObjectMeta)
	return append(errs, ValidatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}
