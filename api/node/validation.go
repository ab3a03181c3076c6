package node

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateRuntimeClass checks a new RuntimeClass as kube-apiserver does:
// a DNS-subdomain name, a handler that is a DNS label, non-negative
// standard overhead resources and valid scheduling labels.
func ValidateRuntimeClass(rc *RuntimeClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&rc.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	for _, msg := range validation.IsDNS1123Label(rc.Handler) {
		errs = append(errs, field.Invalid(field.NewPath("handler"), rc.Handler, msg))
	}
	if rc.Overhead != nil {
		p := field.NewPath("overhead", "podFixed")
		for name, q := range rc.Overhead.PodFixed {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	if s := rc.Scheduling; s != nil {
		errs = append(errs, validation.ValidateLabels(s.NodeSelector, field.NewPath("scheduling", "nodeSelector"))...)
		errs = append(errs, core.ValidateTolerations(s.Tolerations, field.NewPath("scheduling", "tolerations"))...)
	}
	return errs
}

// ValidateRuntimeClassUpdate checks rc as a replacement for old: the
// handler is immutable.
func ValidateRuntimeClassUpdate(rc, old *RuntimeClass) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateRuntimeClass(rc)...)
	return append(errs, validation.ValidateImmutableField(rc.Handler, old.Handler, field.NewPath("handler"))...)
}
