package batch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/validation"
)

// Limits of the Job policies, as kube-apiserver's.
const (
	maxFailedIndexesIndexed       = 100000
	completionsSoftLimit          = 100000
	parallelismLimitHighCompl     = 10000
	maxFailedIndexesLimitHighComp = 10000
	maxPodFailurePolicyRules      = 20
	maxOnExitCodesValues          = 255
	maxOnPodConditionsPatterns    = 20
	maxSuccessPolicyRules         = 20
	maxSucceededIndexesLength     = 64 * 1024
)

var (
	podFailurePolicyActions = []string{string(PodFailurePolicyActionCount), string(PodFailurePolicyActionFailIndex),
		string(PodFailurePolicyActionFailJob), string(PodFailurePolicyActionIgnore)}
	exitCodesOperators = []string{string(PodFailurePolicyOnExitCodesOpIn), string(PodFailurePolicyOnExitCodesOpNotIn)}
	conditionStatuses  = []string{string(meta.ConditionFalse), string(meta.ConditionTrue), string(meta.ConditionUnknown)}
)

// validatePerIndex checks backoffLimitPerIndex and maxFailedIndexes:
// non-negative, Indexed Jobs only, maxFailedIndexes with
// backoffLimitPerIndex and at most completions (and the caps for very
// large Jobs).
func validatePerIndex(spec *JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if v := spec.BackoffLimitPerIndex; v != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*v), p.Child("backoffLimitPerIndex"))...)
	}
	if v := spec.MaxFailedIndexes; v != nil {
		errs = append(errs, validation.ValidateNonnegativeField(int64(*v), p.Child("maxFailedIndexes"))...)
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(p.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == IndexedCompletion
	if !indexed {
		if v := spec.BackoffLimitPerIndex; v != nil {
			errs = append(errs, field.Invalid(p.Child("backoffLimitPerIndex"), *v, "requires indexed completion mode"))
		}
		if v := spec.MaxFailedIndexes; v != nil {
			errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *v, "requires indexed completion mode"))
		}
		return errs
	}
	mfi, c := spec.MaxFailedIndexes, spec.Completions
	if c != nil && mfi != nil && *mfi > *c {
		errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *mfi, "must be less than or equal to completions"))
	}
	if mfi != nil && *mfi > maxFailedIndexesIndexed {
		errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *mfi, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesIndexed)))
	}
	if c == nil || *c <= completionsSoftLimit || spec.BackoffLimitPerIndex == nil {
		return errs
	}
	suffix := fmt.Sprintf(" when completions are above %d and used with backoff limit per index", completionsSoftLimit)
	if mfi == nil {
		errs = append(errs, field.Required(p.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
	}
	if par := spec.Parallelism; par != nil && *par > parallelismLimitHighCompl {
		errs = append(errs, field.Invalid(p.Child("parallelism"), *par, fmt.Sprintf("must be less than or equal to %d", parallelismLimitHighCompl)+suffix))
	}
	if mfi != nil && *mfi > maxFailedIndexesLimitHighComp {
		errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *mfi, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesLimitHighComp)+suffix))
	}
	return errs
}

// validatePolicies checks podFailurePolicy (with its restartPolicy Never
// and podReplacementPolicy Failed) and successPolicy (Indexed Jobs only).
func validatePolicies(spec *JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(spec, p.Child("podFailurePolicy"))...)
		if rp := spec.Template.Spec.RestartPolicy; rp == core.RestartPolicyOnFailure {
			errs = append(errs, field.Invalid(p.Child("template", "spec", "restartPolicy"), string(rp),
				fmt.Sprintf("only %q is supported when podFailurePolicy is specified", core.RestartPolicyNever)))
		}
		if r := spec.PodReplacementPolicy; r != nil && *r != Failed {
			errs = append(errs, field.NotSupported(p.Child("podReplacementPolicy"), string(*r), []string{string(Failed)}))
		}
	}
	if sp := spec.SuccessPolicy; sp != nil {
		if spec.CompletionMode == nil || *spec.CompletionMode != IndexedCompletion {
			errs = append(errs, field.Invalid(p.Child("successPolicy"), *sp, "requires indexed completion mode"))
		} else {
			errs = append(errs, validateSuccessPolicy(spec, p.Child("successPolicy"))...)
		}
	}
	return errs
}

func validatePodFailurePolicy(spec *JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := spec.PodFailurePolicy.Rules
	rp := p.Child("rules")
	if len(rules) > maxPodFailurePolicyRules {
		errs = append(errs, field.TooMany(rp, len(rules), maxPodFailurePolicyRules))
	}
	names := map[string]bool{}
	for _, cs := range [][]core.Container{spec.Template.Spec.Containers, spec.Template.Spec.InitContainers} {
		for _, c := range cs {
			names[c.Name] = true
		}
	}
	for i := range rules {
		errs = append(errs, validatePodFailurePolicyRule(spec, &rules[i], rp.Index(i), names)...)
	}
	return errs
}

func validatePodFailurePolicyRule(spec *JobSpec, r *PodFailurePolicyRule, p *field.Path, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	ap := p.Child("action")
	switch r.Action {
	case "":
		errs = append(errs, field.Required(ap, fmt.Sprintf("valid values: %q", podFailurePolicyActions)))
	case PodFailurePolicyActionFailIndex:
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Invalid(ap, string(r.Action), "requires the backoffLimitPerIndex to be set"))
		}
	case PodFailurePolicyActionCount, PodFailurePolicyActionFailJob, PodFailurePolicyActionIgnore:
	default:
		errs = append(errs, field.NotSupported(ap, string(r.Action), podFailurePolicyActions))
	}
	if r.OnExitCodes != nil {
		errs = append(errs, validateOnExitCodes(r.OnExitCodes, p.Child("onExitCodes"), names)...)
	}
	if len(r.OnPodConditions) > 0 {
		errs = append(errs, validateOnPodConditions(r.OnPodConditions, p.Child("onPodConditions"))...)
	}
	switch {
	case r.OnExitCodes != nil && len(r.OnPodConditions) > 0:
		errs = append(errs, field.Invalid(p, nil, "specifying both OnExitCodes and OnPodConditions is not supported"))
	case r.OnExitCodes == nil && len(r.OnPodConditions) == 0:
		errs = append(errs, field.Invalid(p, nil, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return errs
}

func validateOnPodConditions(pats []PodFailurePolicyOnPodConditionsPattern, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(pats) > maxOnPodConditionsPatterns {
		errs = append(errs, field.TooMany(p, len(pats), maxOnPodConditionsPatterns))
	}
	for i, pat := range pats {
		pp := p.Index(i)
		for _, msg := range validation.IsQualifiedName(string(pat.Type)) {
			errs = append(errs, field.Invalid(pp.Child("type"), string(pat.Type), msg))
		}
		switch pat.Status {
		case "":
			errs = append(errs, field.Required(pp.Child("status"), fmt.Sprintf("valid values: %q", conditionStatuses)))
		case meta.ConditionTrue, meta.ConditionFalse, meta.ConditionUnknown:
		default:
			errs = append(errs, field.NotSupported(pp.Child("status"), string(pat.Status), conditionStatuses))
		}
	}
	return errs
}

func validateOnExitCodes(req *PodFailurePolicyOnExitCodesRequirement, p *field.Path, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	op := p.Child("operator")
	switch req.Operator {
	case "":
		errs = append(errs, field.Required(op, fmt.Sprintf("valid values: %q", exitCodesOperators)))
	case PodFailurePolicyOnExitCodesOpIn, PodFailurePolicyOnExitCodesOpNotIn:
	default:
		errs = append(errs, field.NotSupported(op, string(req.Operator), exitCodesOperators))
	}
	if n := req.ContainerName; n != nil && !names[*n] {
		errs = append(errs, field.Invalid(p.Child("containerName"), *n, "must be one of the container or initContainer names in the pod template"))
	}
	vp := p.Child("values")
	switch {
	case len(req.Values) == 0:
		errs = append(errs, field.Invalid(vp, req.Values, "at least one value is required"))
	case len(req.Values) > maxOnExitCodesValues:
		errs = append(errs, field.TooMany(vp, len(req.Values), maxOnExitCodesValues))
	}
	seen := map[int32]bool{}
	ordered := true
	for i, v := range req.Values {
		if req.Operator == PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(vp.Index(i), v, "must not be 0 for the In operator"))
		}
		if seen[v] {
			errs = append(errs, field.Duplicate(vp.Index(i), v))
		}
		seen[v] = true
		if i > 0 && req.Values[i-1] > v {
			ordered = false
		}
	}
	if !ordered {
		errs = append(errs, field.Invalid(vp, req.Values, "must be ordered"))
	}
	return errs
}

func validateSuccessPolicy(spec *JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := spec.SuccessPolicy.Rules
	rp := p.Child("rules")
	if len(rules) == 0 {
		errs = append(errs, field.Required(rp, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(rules) > maxSuccessPolicyRules {
		errs = append(errs, field.TooMany(rp, len(rules), maxSuccessPolicyRules))
	}
	completions := int32(0)
	if spec.Completions != nil {
		completions = *spec.Completions
	}
	for i, r := range rules {
		pp := rp.Index(i)
		if r.SucceededCount == nil && r.SucceededIndexes == nil {
			errs = append(errs, field.Required(pp, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int32
		if r.SucceededIndexes != nil {
			ip := pp.Child("succeededIndexes")
			if len(*r.SucceededIndexes) > maxSucceededIndexesLength {
				errs = append(errs, field.TooLong(ip, "", maxSucceededIndexesLength))
			}
			var err error
			if total, err = CountIndexes(*r.SucceededIndexes, completions); err != nil {
				errs = append(errs, field.Invalid(ip, *r.SucceededIndexes, "error parsing succeededIndexes: "+err.Error()))
			}
		}
		if c := r.SucceededCount; c != nil {
			cp := pp.Child("succeededCount")
			errs = append(errs, validation.ValidateNonnegativeField(int64(*c), cp)...)
			if *c > completions {
				errs = append(errs, field.Invalid(cp, *c, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			}
			if r.SucceededIndexes != nil && *c > total {
				errs = append(errs, field.Invalid(cp, *c, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// validatePolicyUpdate checks that podFailurePolicy, backoffLimitPerIndex
// and successPolicy did not change.
func validatePolicyUpdate(spec, old *JobSpec, p *field.Path) field.ErrorList {
	errs := validation.ValidateImmutableField(spec.PodFailurePolicy, old.PodFailurePolicy, p.Child("podFailurePolicy"))
	errs = append(errs, validation.ValidateImmutableField(deref(spec.BackoffLimitPerIndex), deref(old.BackoffLimitPerIndex), p.Child("backoffLimitPerIndex"))...)
	return append(errs, validation.ValidateImmutableField(spec.SuccessPolicy, old.SuccessPolicy, p.Child("successPolicy"))...)
}

// IndexInterval is a closed range of completion indexes.
type IndexInterval struct{ First, Last int32 }

// ParseIndexes reads an interval list such as "0,2-4,7" (the form of
// completedIndexes, failedIndexes and succeededIndexes) whose indexes are
// below completions and strictly increasing. The empty string is no
// interval.
func ParseIndexes(s string, completions int32) ([]IndexInterval, error) {
	if s == "" {
		return nil, nil
	}
	var out []IndexInterval
	for _, part := range strings.Split(s, ",") {
		iv, err := parseIndexInterval(part, completions)
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && out[n-1].Last >= iv.First {
			return nil, fmt.Errorf("non-increasing order, previous: %d, current: %d", out[n-1].Last, iv.First)
		}
		out = append(out, iv)
	}
	return out, nil
}

// CountIndexes returns how many indexes the interval list s names (see
// ParseIndexes).
func CountIndexes(s string, completions int32) (int32, error) {
	ivs, err := ParseIndexes(s, completions)
	var n int32
	for _, iv := range ivs {
		n += iv.Last - iv.First + 1
	}
	return n, err
}

func parseIndexInterval(s string, completions int32) (IndexInterval, error) {
	parts := strings.Split(s, "-")
	if len(parts) > 2 {
		return IndexInterval{}, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	var v [2]int32
	for i, part := range parts {
		x, err := strconv.ParseInt(part, 10, 32)
		if err != nil {
			return IndexInterval{}, fmt.Errorf("cannot convert string to integer for index: %q", part)
		}
		if x >= int64(completions) {
			return IndexInterval{}, fmt.Errorf("too large index: %q", part)
		}
		v[i] = int32(x)
	}
	if len(parts) == 1 {
		return IndexInterval{v[0], v[0]}, nil
	}
	if v[0] >= v[1] {
		return IndexInterval{}, fmt.Errorf("non-increasing order, previous: %d, current: %d", v[0], v[1])
	}
	return IndexInterval{v[0], v[1]}, nil
}
