package scheduling

import (
	"fmt"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidatePriorityClass checks a new PriorityClass: names with the
// "system-" prefix are reserved for the system classes with their exact
// values; other classes may not exceed HighestUserDefinablePriority.
func ValidatePriorityClass(pc *PriorityClass) field.ErrorList {
	errs := validation.ValidateObjectMeta(&pc.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if strings.HasPrefix(pc.Name, SystemPriorityClassPrefix) {
		if err := checkSystemClass(pc); err != nil {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		switch *pc.PreemptionPolicy {
		case core.PreemptLowerPriority, core.PreemptNever:
		default:
			errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), string(*pc.PreemptionPolicy),
				[]string{string(core.PreemptLowerPriority), string(core.PreemptNever)}))
		}
	}
	return errs
}

func checkSystemClass(pc *PriorityClass) error {
	for _, sys := range SystemPriorityClasses() {
		if sys.Name != pc.Name {
			continue
		}
		if sys.Value != pc.Value {
			return fmt.Errorf("value of %v PriorityClass must be %v", sys.Name, sys.Value)
		}
		if sys.GlobalDefault != pc.GlobalDefault {
			return fmt.Errorf("globalDefault of %v PriorityClass must be %v", sys.Name, sys.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%v is not a known system priority class", pc.Name)
}

// ValidatePriorityClassUpdate checks pc as a replacement for old: value and
// preemptionPolicy are immutable.
func ValidatePriorityClassUpdate(pc, old *PriorityClass) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&pc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if pc.Value != old.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, validation.ValidateImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}
