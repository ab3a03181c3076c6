package flowcontrol

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// The values validation accepts, as kube-apiserver's.
var (
	supportedVerbs          = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	supportedSubjectKinds   = []string{string(SubjectKindGroup), string(SubjectKindServiceAccount), string(SubjectKindUser)}
	supportedDistinguishers = []string{string(FlowDistinguisherMethodByNamespaceType), string(FlowDistinguisherMethodByUserType)}
	supportedEnablements    = []string{string(PriorityLevelEnablementExempt), string(PriorityLevelEnablementLimited)}
	supportedLimitResponses = []string{string(LimitResponseTypeQueue), string(LimitResponseTypeReject)}
)

// preserveZeroSharesAnnotation is an internal annotation of the beta
// versions that v1 objects may not carry.
const preserveZeroSharesAnnotation = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

// maxHashBits is the entropy shuffle sharding may use (queues, hand size).
const maxHashBits = 60

// ValidateFlowSchema checks a FlowSchema as kube-apiserver does: a DNS
// subdomain name, a precedence in 1..10000 (1 only for "exempt"), a known
// distinguisher, a priority level name, rules with subjects and at least
// one resource or non-resource rule, the fixed spec of the mandatory
// schemas, and conditions with distinct non-empty types.
func ValidateFlowSchema(fs *FlowSchema) field.ErrorList {
	errs := validation.ValidateObjectMeta(&fs.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	errs = append(errs, validateFlowSchemaSpec(fs.Name, &fs.Spec, specPath)...)
	if mand, ok := mandatoryFlowSchema(fs.Name); ok && !validation.SemanticEqual(fs.Spec, mand.Spec) {
		errs = append(errs, field.Invalid(specPath, fs.Spec, fmt.Sprintf("spec of '%s' must equal the fixed value", fs.Name)))
	}
	return append(errs, validateFlowSchemaStatus(&fs.Status, field.NewPath("status"))...)
}

// ValidateFlowSchemaUpdate checks fs as a replacement for old.
func ValidateFlowSchemaUpdate(fs, old *FlowSchema) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&fs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateFlowSchema(fs)...)
}

func validateFlowSchemaSpec(name string, spec *FlowSchemaSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	mp := p.Child("matchingPrecedence")
	switch {
	case spec.MatchingPrecedence <= 0:
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, "must be a positive value"))
	case spec.MatchingPrecedence > MaxMatchingPrecedence:
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, fmt.Sprintf("must not be greater than %v", MaxMatchingPrecedence)))
	case spec.MatchingPrecedence == 1 && name != NameExempt:
		errs = append(errs, field.Invalid(mp, spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm := spec.DistinguisherMethod; dm != nil && !slices.Contains(supportedDistinguishers, string(dm.Type)) {
		errs = append(errs, field.NotSupported(p.Child("distinguisherMethod", "type"), dm.Type, supportedDistinguishers))
	}
	plPath := p.Child("priorityLevelConfiguration", "name")
	if pl := spec.PriorityLevelConfiguration.Name; pl == "" {
		errs = append(errs, field.Required(plPath, "must reference a priority level"))
	} else {
		errs = append(errs, invalidAll(plPath, pl, validation.NameIsDNSSubdomain(pl, false))...)
	}
	for i := range spec.Rules {
		errs = append(errs, validateRulesWithSubjects(&spec.Rules[i], p.Child("rules").Index(i))...)
	}
	return errs
}

func validateRulesWithSubjects(r *PolicyRulesWithSubjects, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range r.Subjects {
		errs = append(errs, validateSubject(&r.Subjects[i], p.Child("subjects").Index(i))...)
	}
	if len(r.ResourceRules) == 0 && len(r.NonResourceRules) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range r.ResourceRules {
		errs = append(errs, validateResourceRule(&r.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range r.NonResourceRules {
		errs = append(errs, validateNonResourceRule(&r.NonResourceRules[i], p.Child("nonResourceRules").Index(i))...)
	}
	return errs
}

func validateSubject(s *Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbid := func(set bool, member, kind string) {
		if set {
			errs = append(errs, field.Forbidden(p.Child(member), fmt.Sprintf("%s is forbidden when subject kind is not '%s'", member, kind)))
		}
	}
	switch s.Kind {
	case SubjectKindServiceAccount:
		errs = append(errs, validateServiceAccountSubject(s.ServiceAccount, p.Child("serviceAccount"))...)
		forbid(s.User != nil, "user", "User")
		forbid(s.Group != nil, "group", "Group")
	case SubjectKindUser:
		if s.User == nil {
			errs = append(errs, field.Required(p.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), ""))
		}
		forbid(s.ServiceAccount != nil, "serviceAccount", "ServiceAccount")
		forbid(s.Group != nil, "group", "Group")
	case SubjectKindGroup:
		if s.Group == nil {
			errs = append(errs, field.Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), ""))
		}
		forbid(s.ServiceAccount != nil, "serviceAccount", "ServiceAccount")
		forbid(s.User != nil, "user", "User")
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, supportedSubjectKinds))
	}
	return errs
}

func validateServiceAccountSubject(sa *ServiceAccountSubject, p *field.Path) field.ErrorList {
	if sa == nil {
		return field.ErrorList{field.Required(p, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var errs field.ErrorList
	if sa.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else if sa.Name != NameAll {
		errs = append(errs, invalidAll(p.Child("name"), sa.Name, validation.NameIsDNSSubdomain(sa.Name, false))...)
	}
	if sa.Namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), "must specify namespace for service account"))
	} else {
		errs = append(errs, invalidAll(p.Child("namespace"), sa.Namespace, validation.NameIsDNSLabel(sa.Namespace, false))...)
	}
	return errs
}

// validateVerbs checks a rule's verbs: "*" alone or supported verbs.
func validateVerbs(verbs []string, p *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case slices.Contains(verbs, VerbAll):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(supportedVerbs, v) {
				return field.ErrorList{field.NotSupported(p, verbs, supportedVerbs)}
			}
		}
	}
	return nil
}

func validateResourceRule(r *ResourcePolicyRule, p *field.Path) field.ErrorList {
	errs := validateVerbs(r.Verbs, p.Child("verbs"))
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, APIGroupAll) {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(r.Resources) > 1 && slices.Contains(r.Resources, ResourceAll) {
		errs = append(errs, field.Invalid(p.Child("resources"), r.Resources, "if '*' is present, must not specify other resources"))
	}
	switch {
	case len(r.Namespaces) == 0 && !r.ClusterScope:
		errs = append(errs, field.Required(p.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(r.Namespaces, NamespaceEvery):
		if len(r.Namespaces) > 1 {
			errs = append(errs, field.Invalid(p.Child("namespaces"), r.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range r.Namespaces {
			for _, msg := range validation.NameIsDNSLabel(ns, false) {
				errs = append(errs, field.Invalid(p.Child("namespaces").Index(i), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
			}
		}
	}
	return errs
}

func validateNonResourceRule(r *NonResourcePolicyRule, p *field.Path) field.ErrorList {
	errs := validateVerbs(r.Verbs, p.Child("verbs"))
	up := p.Child("nonResourceURLs")
	switch {
	case len(r.NonResourceURLs) == 0:
		errs = append(errs, field.Required(up, "nonResourceURLs must contain at least one value"))
	case slices.Contains(r.NonResourceURLs, NonResourceAll):
		if len(r.NonResourceURLs) > 1 {
			errs = append(errs, field.Invalid(up, r.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range r.NonResourceURLs {
			if msg := checkNonResourceURL(u); msg != "" {
				errs = append(errs, field.Invalid(up.Index(i), u, msg))
			}
		}
	}
	return errs
}

// checkNonResourceURL returns why path is not a valid non-resource URL
// ("" when it is): absolute, no spaces or "//", "*" only as a "/*" suffix.
func checkNonResourceURL(path string) string {
	switch {
	case path == "":
		return "must not be empty"
	case path == "/":
		return ""
	case !strings.HasPrefix(path, "/"):
		return "must start with slash"
	case strings.Contains(path, " "):
		return "must not contain white-space"
	case strings.Contains(path, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(path, "*"); n > 1 || n == 1 && !strings.HasSuffix(path, "/*") {
		return "wildcard can only do suffix matching"
	}
	return ""
}

func validateFlowSchemaStatus(st *FlowSchemaStatus, p *field.Path) field.ErrorList {
	types := make([]string, len(st.Conditions))
	for i, c := range st.Conditions {
		types[i] = string(c.Type)
	}
	return validateConditionTypes(types, p.Child("conditions"))
}

// validateConditionTypes checks that condition types are set and distinct.
func validateConditionTypes(types []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range types {
		if seen[t] {
			errs = append(errs, field.Duplicate(p.Index(i).Child("type"), t))
		}
		seen[t] = true
		if t == "" {
			errs = append(errs, field.Required(p.Index(i).Child("type"), ""))
		}
	}
	return errs
}

// ValidatePriorityLevelConfiguration checks a level as kube-apiserver
// does: a DNS subdomain name, type Exempt exactly for "exempt", a limited
// block exactly for Limited levels with non-negative shares, percentages
// in range and a valid limit response, the fixed spec of the mandatory
// levels, and conditions with distinct non-empty types.
func ValidatePriorityLevelConfiguration(pl *PriorityLevelConfiguration) field.ErrorList {
	errs := validation.ValidateObjectMeta(&pl.ObjectMeta, false, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if _, ok := pl.Annotations[preserveZeroSharesAnnotation]; ok {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "annotations"), fmt.Sprintf("annotation '%s' is forbidden", preserveZeroSharesAnnotation)))
	}
	specPath := field.NewPath("spec")
	errs = append(errs, validatePriorityLevelSpec(&pl.Spec, pl.Name, specPath)...)
	errs = append(errs, validateMandatoryPriorityLevel(pl, specPath)...)
	types := make([]string, len(pl.Status.Conditions))
	for i, c := range pl.Status.Conditions {
		types[i] = string(c.Type)
	}
	return append(errs, validateConditionTypes(types, field.NewPath("status", "conditions"))...)
}

// ValidatePriorityLevelConfigurationUpdate checks pl as a replacement for old.
func ValidatePriorityLevelConfigurationUpdate(pl, old *PriorityLevelConfiguration) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&pl.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidatePriorityLevelConfiguration(pl)...)
}

// validateMandatoryPriorityLevel keeps the mandatory levels' specs fixed;
// only spec.exempt of "exempt" may change.
func validateMandatoryPriorityLevel(pl *PriorityLevelConfiguration, p *field.Path) field.ErrorList {
	mand, ok := mandatoryPriorityLevel(pl.Name)
	if !ok {
		return nil
	}
	have := pl.Spec
	msg := fmt.Sprintf("spec of '%s' must equal the fixed value", pl.Name)
	if pl.Name == NameExempt {
		have.Exempt = mand.Spec.Exempt
		msg = fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", pl.Name)
	}
	if !validation.SemanticEqual(have, mand.Spec) {
		return field.ErrorList{field.Invalid(p, pl.Spec, msg)}
	}
	return nil
}

func validatePriorityLevelSpec(spec *PriorityLevelConfigurationSpec, name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if (name == NameExempt) != (spec.Type == PriorityLevelEnablementExempt) {
		errs = append(errs, field.Invalid(p.Child("type"), spec.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	}
	switch spec.Type {
	case PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			errs = append(errs, field.Forbidden(p.Child("limited"), "must be nil if the type is not Limited"))
		}
		if e := spec.Exempt; e != nil {
			errs = append(errs, nonNegative(e.NominalConcurrencyShares, p.Child("exempt", "nominalConcurrencyShares"))...)
			errs = append(errs, percent(e.LendablePercent, p.Child("exempt", "lendablePercent"))...)
		}
	case PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			errs = append(errs, field.Forbidden(p.Child("exempt"), "must be nil if the type is Limited"))
		}
		if spec.Limited == nil {
			errs = append(errs, field.Required(p.Child("limited"), "must not be empty when type is Limited"))
		} else {
			errs = append(errs, validateLimited(spec.Limited, p.Child("limited"))...)
		}
	case "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), spec.Type, supportedEnablements))
	}
	return errs
}

func nonNegative(v *int32, p *field.Path) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(p, *v, "must be a non-negative integer")}
	}
	return nil
}

func percent(v *int32, p *field.Path) field.ErrorList {
	if v != nil && (*v < 0 || *v > 100) {
		return field.ErrorList{field.Invalid(p, *v, "must be between 0 and 100, inclusive")}
	}
	return nil
}

func validateLimited(l *LimitedPriorityLevelConfiguration, p *field.Path) field.ErrorList {
	errs := nonNegative(l.NominalConcurrencyShares, p.Child("nominalConcurrencyShares"))
	errs = append(errs, validateLimitResponse(&l.LimitResponse, p.Child("limitResponse"))...)
	errs = append(errs, percent(l.LendablePercent, p.Child("lendablePercent"))...)
	if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
		errs = append(errs, field.Invalid(p.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
	}
	return errs
}

func validateLimitResponse(lr *LimitResponse, p *field.Path) field.ErrorList {
	switch lr.Type {
	case LimitResponseTypeReject:
		if lr.Queuing != nil {
			return field.ErrorList{field.Forbidden(p.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited")}
		}
	case LimitResponseTypeQueue:
		if lr.Queuing == nil {
			return field.ErrorList{field.Required(p.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited")}
		}
		return validateQueuing(lr.Queuing, p.Child("queuing"))
	case "":
		return field.ErrorList{field.Required(p.Child("type"), "")}
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), lr.Type, supportedLimitResponses)}
	}
	return nil
}

func validateQueuing(q *QueuingConfiguration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		errs = append(errs, field.Invalid(p.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > MaxQueues {
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", MaxQueues)))
	}
	switch {
	case q.HandSize <= 0:
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case entropyBits(q.Queues, q.HandSize) > maxHashBits:
		errs = append(errs, field.Invalid(p.Child("handSize"), q.HandSize,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
	}
	return errs
}

// entropyBits is the hash bits shuffle sharding needs to deal a hand of
// handSize from deckSize queues.
func entropyBits(deckSize, handSize int32) int {
	return int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize)))
}

func invalidAll(p *field.Path, v string, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, v, m))
	}
	return errs
}
