package policy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// Messages worded as Kubernetes words them.
const (
	msgBothSet       = "minAvailable and maxUnavailable cannot be both set"
	msgOver100       = "must not be greater than 100%"
	msgDisruptedPods = "must have at most %d entries"
)

var percentRE = regexp.MustCompile(`^[0-9]+%$`)

// ValidatePodDisruptionBudget checks a new budget: its metadata (a
// namespaced DNS subdomain name) and its spec.
func ValidatePodDisruptionBudget(pdb *PodDisruptionBudget) field.ErrorList {
	errs := validation.ValidateObjectMeta(&pdb.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, ValidatePodDisruptionBudgetSpec(&pdb.Spec, field.NewPath("spec"))...)
}

// ValidatePodDisruptionBudgetUpdate checks pdb as a replacement for old.
// In policy/v1 the spec is mutable; the status (written through the
// status subresource by the disruption controller and the eviction
// handler) must hold non-negative counts and valid conditions.
func ValidatePodDisruptionBudgetUpdate(pdb, old *PodDisruptionBudget) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&pdb.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePodDisruptionBudgetSpec(&pdb.Spec, field.NewPath("spec"))...)
	return append(errs, ValidatePodDisruptionBudgetStatus(&pdb.Status, field.NewPath("status"))...)
}

// ValidatePodDisruptionBudgetSpec checks a spec at p: at most one of
// minAvailable and maxUnavailable, each a non-negative count or a
// percentage of at most 100%, a valid selector and a known unhealthy pod
// eviction policy.
func ValidatePodDisruptionBudgetSpec(spec *PodDisruptionBudgetSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(p, specValue{spec}, msgBothSet))
	}
	for _, v := range []struct {
		name string
		v    *meta.IntOrString
	}{{"minAvailable", spec.MinAvailable}, {"maxUnavailable", spec.MaxUnavailable}} {
		if v.v == nil {
			continue
		}
		errs = append(errs, apps.ValidatePositiveIntOrPercent(*v.v, p.Child(v.name))...)
		errs = append(errs, notMoreThan100Percent(*v.v, p.Child(v.name))...)
	}
	errs = append(errs, validation.ValidateLabelSelector(spec.Selector, p.Child("selector"))...)
	if pol := spec.UnhealthyPodEvictionPolicy; pol != nil && *pol != IfHealthyBudget && *pol != AlwaysAllow {
		errs = append(errs, field.NotSupported(p.Child("unhealthyPodEvictionPolicy"), string(*pol),
			[]string{string(AlwaysAllow), string(IfHealthyBudget)}))
	}
	return errs
}

// ValidatePodDisruptionBudgetStatus checks a status at p: non-negative
// counts, conditions with a type, a known status and a reason, and at most
// MaxDisruptedPodSize disrupted pods beyond what the eviction handler
// allows (it refuses evictions past the limit, so a larger map is a bad
// write).
func ValidatePodDisruptionBudgetStatus(st *PodDisruptionBudgetStatus, p *field.Path) field.ErrorList {
	errs := validation.ValidateNonnegativeField(st.ObservedGeneration, p.Child("observedGeneration"))
	for _, c := range []struct {
		name string
		v    int32
	}{
		{"disruptionsAllowed", st.DisruptionsAllowed}, {"currentHealthy", st.CurrentHealthy},
		{"desiredHealthy", st.DesiredHealthy}, {"expectedPods", st.ExpectedPods},
	} {
		errs = append(errs, validation.ValidateNonnegativeField(int64(c.v), p.Child(c.name))...)
	}
	if len(st.DisruptedPods) > MaxDisruptedPodSize+1 {
		errs = append(errs, field.TooMany(p.Child("disruptedPods"), len(st.DisruptedPods), MaxDisruptedPodSize+1))
	}
	return append(errs, validation.ValidateConditions(st.Conditions, p.Child("conditions"))...)
}

// notMoreThan100Percent rejects a percentage above 100%.
func notMoreThan100Percent(v meta.IntOrString, p *field.Path) field.ErrorList {
	if !v.IsString || !percentRE.MatchString(v.StrVal) {
		return nil
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); err == nil && n <= 100 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, v.StrVal, msgOver100)}
}

// specValue prints a spec as the bad value of an error.
type specValue struct{ s *PodDisruptionBudgetSpec }

// String renders the two bounds.
func (v specValue) String() string {
	str := func(x *meta.IntOrString) string {
		if x == nil {
			return "nil"
		}
		return x.String()
	}
	return fmt.Sprintf("policy.PodDisruptionBudgetSpec{MinAvailable:%s, MaxUnavailable:%s}", str(v.s.MinAvailable), str(v.s.MaxUnavailable))
}
