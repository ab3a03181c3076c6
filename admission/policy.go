package admission

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
	"github.com/orkit/orkit/api/labels"
	"github.com/orkit/orkit/api/meta"
)

// PolicyLister lists the current ValidatingAdmissionPolicies from a cache.
// The objects are shared and never changed. Safe for concurrent use.
type PolicyLister func() []*admissionregistration.ValidatingAdmissionPolicy

// BindingLister lists the current ValidatingAdmissionPolicyBindings from a
// cache. The objects are shared and never changed. Safe for concurrent use.
type BindingLister func() []*admissionregistration.ValidatingAdmissionPolicyBinding

// ParamSource finds the parameter objects of a policy: the objects of kind
// (apiVersion "group/version" or "v1") in namespace ("" for all, or for a
// cluster-scoped kind). namespaced says whether the kind is namespaced. An
// unknown kind is an error. Safe for concurrent use.
type ParamSource interface {
	ListByKind(ctx context.Context, apiVersion, kind, namespace string) (objs []meta.Object, namespaced bool, err error)
}

// PolicyConfig is what the ValidatingAdmissionPolicy plugin reads.
type PolicyConfig struct {
	// Policies and Bindings list the configuration; both are required.
	Policies PolicyLister
	Bindings BindingLister
	// Params finds parameter objects; nil means policies with a paramKind
	// fail (under their failurePolicy).
	Params ParamSource
	// Namespaces and NamespaceLookup read namespaces for namespaceSelectors
	// and namespaceObject, as in WebhookConfig.
	Namespaces      NamespaceGetter
	NamespaceLookup NamespaceLookup
	// Logger records Audit actions and failures ignored by policy; nil
	// means slog.Default().
	Logger *slog.Logger
}

// ValidatingAdmissionPolicy is the ValidatingAdmissionPolicy plugin: for
// every binding whose policy matches a request (the policy's
// matchConstraints, the binding's matchResources, the matchConditions), it
// evaluates the policy's CEL validations with object, oldObject, request,
// params (each parameter object the binding's paramRef selects),
// namespaceObject and variables. A failed validation is acted on as the
// binding's validationActions say: Deny rejects the request
// (`ValidatingAdmissionPolicy 'p' with binding 'b' denied request: <msg>`
// with the validation's reason, Invalid by default), Warn sends a warning,
// Audit logs it. An expression that cannot be evaluated counts as a
// failure under failurePolicy Fail and is skipped under Ignore.
//
// Compiled expressions are cached per policy resourceVersion. Safe for
// concurrent use.
type ValidatingAdmissionPolicy struct {
	Handler
	cfg   PolicyConfig
	match matcher
	log   *slog.Logger

	mu       sync.Mutex
	compiled map[meta.UID]*compiledPolicy
}

var _ Validator = (*ValidatingAdmissionPolicy)(nil)

// NewValidatingAdmissionPolicy returns the plugin reading cfg.
func NewValidatingAdmissionPolicy(cfg PolicyConfig) *ValidatingAdmissionPolicy {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &ValidatingAdmissionPolicy{
		Handler: Handler{PluginName: "ValidatingAdmissionPolicy", Operations: []Operation{Create, Update, Delete, Connect}},
		cfg:     cfg, match: matcher{namespaces: cfg.Namespaces, lookup: cfg.NamespaceLookup}, log: log,
		compiled: map[meta.UID]*compiledPolicy{},
	}
}

// compiledPolicy is a policy with its expressions compiled.
type compiledPolicy struct {
	rv          string
	validations []compiledValidation
	conditions  []*celpolicy.Program
	variables   []namedProgram
	err         error
}

type compiledValidation struct {
	v       admissionregistration.Validation
	prog    *celpolicy.Program
	message *celpolicy.Program
}

type namedProgram struct {
	name string
	prog *celpolicy.Program
}

// compile returns p compiled, from the cache when p has not changed.
func (v *ValidatingAdmissionPolicy) compile(p *admissionregistration.ValidatingAdmissionPolicy) *compiledPolicy {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.compiled[p.UID]; ok && c.rv == p.ResourceVersion {
		return c
	}
	c := &compiledPolicy{rv: p.ResourceVersion}
	for _, val := range p.Spec.Validations {
		cv := compiledValidation{v: val}
		cv.prog, c.err = celpolicy.Compile(val.Expression, celpolicy.Bool)
		if c.err == nil && strings.TrimSpace(val.MessageExpression) != "" {
			cv.message, _ = celpolicy.Compile(val.MessageExpression, celpolicy.String)
		}
		if c.err != nil {
			break
		}
		c.validations = append(c.validations, cv)
	}
	for _, mc := range p.Spec.MatchConditions {
		if c.err != nil {
			break
		}
		var prog *celpolicy.Program
		prog, c.err = celpolicy.Compile(mc.Expression, celpolicy.Bool)
		c.conditions = append(c.conditions, prog)
	}
	for _, vr := range p.Spec.Variables {
		if c.err != nil {
			break
		}
		var prog *celpolicy.Program
		prog, c.err = celpolicy.Compile(vr.Expression, celpolicy.Any)
		c.variables = append(c.variables, namedProgram{name: vr.Name, prog: prog})
	}
	if len(v.compiled) > 256 {
		clear(v.compiled) // policies come and go rarely; start afresh
	}
	v.compiled[p.UID] = c
	return c
}

// decision is one failed validation (or evaluation failure) of a binding.
type decision struct {
	policy, binding string
	message         string
	reason          meta.StatusReason
	actions         []admissionregistration.ValidationAction
}

// Validate evaluates every binding that applies to a.
func (v *ValidatingAdmissionPolicy) Validate(ctx context.Context, a *Attributes) error {
	bindings := v.cfg.Bindings()
	if len(bindings) == 0 {
		return nil
	}
	policies := map[string]*admissionregistration.ValidatingAdmissionPolicy{}
	for _, p := range v.cfg.Policies() {
		policies[p.Name] = p
	}
	req := &requestVars{a: a}
	for _, b := range sortedByName(bindings) {
		p := policies[b.Spec.PolicyName]
		if p == nil {
			continue // kube ignores a binding whose policy does not exist
		}
		decisions, err := v.evaluate(ctx, p, b, req)
		if err != nil {
			return err
		}
		if err := v.act(ctx, a, decisions); err != nil {
			return err
		}
	}
	return nil
}

// act applies the binding's actions to its failed validations.
func (v *ValidatingAdmissionPolicy) act(ctx context.Context, a *Attributes, decisions []decision) error {
	for _, d := range decisions {
		if slices.Contains(d.actions, admissionregistration.Warn) {
			AddWarning(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", d.policy, d.binding, d.message))
		}
		if slices.Contains(d.actions, admissionregistration.Audit) {
			v.log.InfoContext(ctx, "admission: validating admission policy audit", "policy", d.policy, "binding", d.binding,
				"resource", a.Resource.String(), "namespace", a.Namespace, "name", a.Name, "message", d.message)
		}
	}
	for _, d := range decisions {
		if slices.Contains(d.actions, admissionregistration.Deny) {
			return policyDenied(a, d)
		}
	}
	return nil
}

// policyDenied words a denial as kube-apiserver does: admission's
// Forbidden text with the validation's reason and its code, and the
// message as a cause.
func policyDenied(a *Attributes, d decision) error {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	st := forbidden(a, errors.New(msg))
	reason := d.reason
	if reason == "" {
		reason = meta.StatusReasonInvalid
	}
	st.Reason = reason
	st.Code = map[meta.StatusReason]int32{
		meta.StatusReasonForbidden: http.StatusForbidden, meta.StatusReasonInvalid: http.StatusUnprocessableEntity,
		meta.StatusReasonRequestEntityTooLarge: http.StatusRequestEntityTooLarge, meta.StatusReasonUnauthorized: http.StatusUnauthorized,
	}[reason]
	if st.Code == 0 {
		st.Code = http.StatusUnprocessableEntity
	}
	if st.Details != nil {
		st.Details.Causes = append(st.Details.Causes, meta.StatusCause{Message: msg})
	}
	return st
}

// matchesResources applies a policy's matchConstraints or a binding's
// matchResources (allRules: no resourceRules means every resource). No
// policy applies to the admission configurations themselves.
func (m *matcher) matchesResources(ctx context.Context, mr *admissionregistration.MatchResources, a *Attributes, allRules bool) (bool, error) {
	if isAdmissionConfiguration(a) {
		return false, nil
	}
	if mr == nil {
		return true, nil
	}
	if ok, err := m.namespaceSelectorMatches(ctx, mr.NamespaceSelector, a); !ok || err != nil {
		return false, err
	}
	if ok, err := objectSelectorMatches(mr.ObjectSelector, a); !ok || err != nil {
		return false, err
	}
	for i := range mr.ExcludeResourceRules {
		if namedRuleMatches(&mr.ExcludeResourceRules[i], a) {
			return false, nil
		}
	}
	if allRules && len(mr.ResourceRules) == 0 {
		return true, nil
	}
	for i := range mr.ResourceRules {
		if namedRuleMatches(&mr.ResourceRules[i], a) {
			return true, nil
		}
	}
	return false, nil
}

func namedRuleMatches(r *admissionregistration.NamedRuleWithOperations, a *Attributes) bool {
	return ruleMatches(&r.RuleWithOperations, a) && (len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.Name))
}

// selectParams returns the parameter objects b selects for a.
func (v *ValidatingAdmissionPolicy) selectParams(ctx context.Context, p *admissionregistration.ValidatingAdmissionPolicy, b *admissionregistration.ValidatingAdmissionPolicyBinding, a *Attributes) ([]any, error) {
	if p.Spec.ParamKind == nil {
		return []any{nil}, nil
	}
	ref := b.Spec.ParamRef
	if ref == nil {
		return nil, fmt.Errorf("failed to configure binding: paramRef is required when paramKind is set")
	}
	if v.cfg.Params == nil {
		return nil, fmt.Errorf("failed to configure policy: no parameter source")
	}
	k := p.Spec.ParamKind
	objs, namespaced, err := v.cfg.Params.ListByKind(ctx, k.APIVersion, k.Kind, "")
	if err != nil {
		return nil, fmt.Errorf("failed to configure policy: failed to find resource referenced by paramKind: '%s, Kind=%s'", k.APIVersion, k.Kind)
	}
	ns := ref.Namespace
	if namespaced && ns == "" {
		if a.Namespace == "" {
			return nil, fmt.Errorf("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
		ns = a.Namespace
	}
	sel := labels.Everything()
	if ref.Selector != nil {
		if sel, err = labels.SelectorFromLabelSelector(ref.Selector); err != nil {
			return nil, err
		}
	}
	var out []any
	for _, o := range objs {
		m := o.GetObjectMeta()
		if (namespaced && m.Namespace != ns) || (ref.Name != "" && m.Name != ref.Name) || !sel.Matches(labels.Set(m.Labels)) {
			continue
		}
		val, err := celpolicy.ToValue(o)
		if err != nil {
			return nil, err
		}
		out = append(out, val)
	}
	if len(out) == 0 {
		if ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistration.DenyAction {
			return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
		}
		return nil, nil // Allow: nothing to evaluate
	}
	return out, nil
}
