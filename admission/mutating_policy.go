package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/patch"
)

// MutatingPolicyConfig is what the MutatingAdmissionPolicy plugin reads.
type MutatingPolicyConfig struct {
	// Policies and Bindings list the configuration; both are required.
	Policies func() []*admissionregistration.MutatingAdmissionPolicy
	Bindings func() []*admissionregistration.MutatingAdmissionPolicyBinding
	// Params finds parameter objects; nil means policies with a paramKind
	// fail (under their failurePolicy).
	Params ParamSource
	// Namespaces and NamespaceLookup read namespaces for namespaceSelectors
	// and namespaceObject, as in WebhookConfig.
	Namespaces      NamespaceGetter
	NamespaceLookup NamespaceLookup
	// Defaults applies the kind's defaults to a mutated object; nil means
	// none.
	Defaults func(meta.Object)
	// Logger records failures ignored by policy; nil means slog.Default().
	Logger *slog.Logger
}

// MutatingAdmissionPolicy is the MutatingAdmissionPolicy plugin: for every
// binding (in name order) whose policy matches a CREATE, UPDATE or
// CONNECT request (the policy's matchConstraints, the binding's
// matchResources, the matchConditions), it evaluates the policy's
// mutations in order with object (as changed by the mutations before),
// oldObject, request, params (each parameter object the binding's
// paramRef selects), namespaceObject and variables, and applies each
// result to the object: an ApplyConfiguration's Object{...} is merged in
// (maps merge, lists of the known kinds merge by key as a strategic merge
// patch merges them, other lists are replaced); a JSONPatch's list of
// JSONPatch{op, path, from, value} is applied as RFC 6902 operations. A
// mutation that cannot be evaluated or applied rejects the request under
// failurePolicy Fail (`policy 'p' with binding 'b' denied request: ...`)
// and is skipped under Ignore.
//
// Kept differences from kube-apiserver: expressions are not type-checked
// against the resource's schema (Object fields are dynamic); an apply
// configuration is merged without field ownership; reinvocationPolicy
// IfNeeded does not run a policy again after later mutations.
//
// Compiled expressions are cached per policy resourceVersion. Safe for
// concurrent use.
type MutatingAdmissionPolicy struct {
	Handler
	cfg    MutatingPolicyConfig
	match  matcher
	params *ValidatingAdmissionPolicy // its parameter selection, shared
	log    *slog.Logger

	mu       sync.Mutex
	compiled map[meta.UID]*compiledMutatingPolicy
}

var _ Mutator = (*MutatingAdmissionPolicy)(nil)

// NewMutatingAdmissionPolicy returns the plugin reading cfg.
func NewMutatingAdmissionPolicy(cfg MutatingPolicyConfig) *MutatingAdmissionPolicy {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &MutatingAdmissionPolicy{
		Handler: Handler{PluginName: "MutatingAdmissionPolicy", Operations: []Operation{Create, Update, Connect}},
		cfg:     cfg, match: matcher{namespaces: cfg.Namespaces, lookup: cfg.NamespaceLookup}, log: log,
		params:   NewValidatingAdmissionPolicy(PolicyConfig{Params: cfg.Params, Logger: log}),
		compiled: map[meta.UID]*compiledMutatingPolicy{},
	}
}

// compiledMutatingPolicy is a policy with its expressions compiled.
type compiledMutatingPolicy struct {
	rv         string
	mutations  []*celpolicy.Program
	conditions []*celpolicy.Program
	variables  []namedProgram
	err        error
}

// compile returns p compiled, from the cache when p has not changed.
func (m *MutatingAdmissionPolicy) compile(p *admissionregistration.MutatingAdmissionPolicy) *compiledMutatingPolicy {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.compiled[p.UID]; ok && c.rv == p.ResourceVersion {
		return c
	}
	c := &compiledMutatingPolicy{rv: p.ResourceVersion}
	c.err = compileMutatingPolicy(p, c)
	if len(m.compiled) > 256 {
		clear(m.compiled)
	}
	m.compiled[p.UID] = c
	return c
}

func compileMutatingPolicy(p *admissionregistration.MutatingAdmissionPolicy, c *compiledMutatingPolicy) error {
	for _, mu := range p.Spec.Mutations {
		expr := ""
		switch {
		case mu.PatchType == admissionregistration.PatchTypeApplyConfiguration && mu.ApplyConfiguration != nil:
			expr = mu.ApplyConfiguration.Expression
		case mu.PatchType == admissionregistration.PatchTypeJSONPatch && mu.JSONPatch != nil:
			expr = mu.JSONPatch.Expression
		default:
			return fmt.Errorf("mutation of patchType %q has no expression", mu.PatchType)
		}
		prog, err := celpolicy.CompileMutation(expr)
		if err != nil {
			return err
		}
		c.mutations = append(c.mutations, prog)
	}
	for _, mc := range p.Spec.MatchConditions {
		prog, err := celpolicy.Compile(mc.Expression, celpolicy.Bool)
		if err != nil {
			return err
		}
		c.conditions = append(c.conditions, prog)
	}
	for _, vr := range p.Spec.Variables {
		prog, err := celpolicy.Compile(vr.Expression, celpolicy.Any)
		if err != nil {
			return err
		}
		c.variables = append(c.variables, namedProgram{name: vr.Name, prog: prog})
	}
	return nil
}

// Admit applies every binding that applies to a, changing a.Object.
func (m *MutatingAdmissionPolicy) Admit(ctx context.Context, a *Attributes) error {
	if a.Object == nil || m.cfg.Bindings == nil || m.cfg.Policies == nil {
		return nil
	}
	bindings := m.cfg.Bindings()
	if len(bindings) == 0 {
		return nil
	}
	policies := map[string]*admissionregistration.MutatingAdmissionPolicy{}
	for _, p := range m.cfg.Policies() {
		policies[p.Name] = p
	}
	cur, err := json.Marshal(a.Object)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	orig := cur
	for _, b := range sortedByName(bindings) {
		p := policies[b.Spec.PolicyName]
		if p == nil {
			continue // as kube, a binding of a missing policy does nothing
		}
		next, err := m.apply(ctx, p, b, a, cur)
		if err != nil {
			if p.Spec.FailurePolicy != nil && *p.Spec.FailurePolicy == admissionregistration.Ignore {
				m.log.WarnContext(ctx, "admission: mutating admission policy failed, ignored", "policy", p.Name, "binding", b.Name, "err", err)
				continue
			}
			return forbidden(a, fmt.Errorf("policy '%s' with binding '%s' denied request: %w", p.Name, b.Name, err))
		}
		cur = next
	}
	if string(orig) == string(cur) {
		return nil
	}
	return m.replace(a.Object, cur)
}

// apply returns doc (the object's JSON) with the mutations of p under b
// applied, or doc unchanged when they do not apply.
func (m *MutatingAdmissionPolicy) apply(ctx context.Context, p *admissionregistration.MutatingAdmissionPolicy, b *admissionregistration.MutatingAdmissionPolicyBinding, a *Attributes, doc []byte) ([]byte, error) {
	if ok, err := m.match.matchesResources(ctx, p.Spec.MatchConstraints, a, false); !ok || err != nil {
		return doc, err
	}
	if ok, err := m.match.matchesResources(ctx, b.Spec.MatchResources, a, true); !ok || err != nil {
		return doc, err
	}
	c := m.compile(p)
	if c.err != nil {
		return nil, fmt.Errorf("failed to compile: %w", c.err)
	}
	// Parameter selection reads only paramKind and paramRef.
	params, err := m.params.selectParams(ctx,
		&admissionregistration.ValidatingAdmissionPolicy{Spec: admissionregistration.ValidatingAdmissionPolicySpec{ParamKind: p.Spec.ParamKind}},
		&admissionregistration.ValidatingAdmissionPolicyBinding{Spec: admissionregistration.ValidatingAdmissionPolicyBindingSpec{ParamRef: b.Spec.ParamRef}}, a)
	if err != nil {
		return nil, err
	}
	for _, param := range params {
		if doc, err = m.applyOne(ctx, p, c, a, doc, param); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// applyOne runs the variables, matchConditions and mutations with one
// set of params; each mutation sees the object as the ones before left it.
func (m *MutatingAdmissionPolicy) applyOne(ctx context.Context, p *admissionregistration.MutatingAdmissionPolicy, c *compiledMutatingPolicy, a *Attributes, doc []byte, param any) ([]byte, error) {
	for i, prog := range c.mutations {
		req := &requestVars{a: a, object: doc}
		base, err := req.activation(ctx, &m.match)
		if err != nil {
			return nil, err
		}
		act := make(celpolicy.Activation, len(base)+2)
		for k, x := range base {
			act[k] = x
		}
		act[celpolicy.VarParams] = param
		if i == 0 {
			if ok, err := m.preconditions(p, c, act); !ok || err != nil {
				return doc, err
			}
		} else if err := m.variables(c, act); err != nil {
			return nil, err
		}
		out, err := prog.Eval(act)
		if err != nil {
			return nil, fmt.Errorf("expression '%s' resulted in error: %w", strings.TrimSpace(prog.Expression()), err)
		}
		if doc, err = applyMutation(p.Spec.Mutations[i].PatchType, doc, out, a.Kind.Kind); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// preconditions sets the variables and evaluates the matchConditions: false
// means the policy does not apply.
func (m *MutatingAdmissionPolicy) preconditions(p *admissionregistration.MutatingAdmissionPolicy, c *compiledMutatingPolicy, act celpolicy.Activation) (bool, error) {
	if err := m.variables(c, act); err != nil {
		return false, err
	}
	for i, cond := range c.conditions {
		ok, err := cond.EvalBool(act)
		if err != nil {
			return false, fmt.Errorf("failed to evaluate matchCondition %q: %w", p.Spec.MatchConditions[i].Name, err)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

func (m *MutatingAdmissionPolicy) variables(c *compiledMutatingPolicy, act celpolicy.Activation) error {
	vars := map[string]any{}
	act[celpolicy.VarVariables] = vars
	for _, vr := range c.variables {
		val, err := vr.prog.Eval(act)
		if err != nil {
			return fmt.Errorf("variable %q resulted in error: %w", vr.name, err)
		}
		vars[vr.name] = val
	}
	return nil
}

// errNotPatch: a mutation's expression gave a value of the wrong shape.
var errNotPatch = errors.New("mutation result has the wrong type")

// applyMutation applies one mutation's result to doc.
func applyMutation(t admissionregistration.PatchType, doc []byte, result any, kind string) ([]byte, error) {
	switch t {
	case admissionregistration.PatchTypeApplyConfiguration:
		obj, ok := result.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: an ApplyConfiguration must evaluate to an Object, not %T", errNotPatch, result)
		}
		body, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		return patch.Apply(patch.StrategicMerge, doc, body, kind)
	case admissionregistration.PatchTypeJSONPatch:
		ops, ok := result.([]any)
		if !ok {
			return nil, fmt.Errorf("%w: a JSONPatch must evaluate to a list of JSONPatch, not %T", errNotPatch, result)
		}
		body, err := json.Marshal(ops)
		if err != nil {
			return nil, err
		}
		return patch.Apply(patch.JSONPatch, doc, body, kind)
	}
	return nil, fmt.Errorf("%w: unsupported patchType %q", errNotPatch, t)
}

// replace decodes data into obj in place (the server holds obj), then
// applies the kind's defaults.
func (m *MutatingAdmissionPolicy) replace(obj meta.Object, data []byte) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return apierrors.NewInternalError(fmt.Errorf("cannot mutate an object of type %T", obj))
	}
	fresh := reflect.New(v.Elem().Type())
	if err := json.Unmarshal(data, fresh.Interface()); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("mutated object is invalid: %v", err))
	}
	v.Elem().Set(fresh.Elem())
	if m.cfg.Defaults != nil {
		m.cfg.Defaults(obj)
	}
	return nil
}
