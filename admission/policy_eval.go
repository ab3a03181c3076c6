package admission

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionregistration/celpolicy"
)

// requestVars converts a request's objects for CEL once, however many
// policies read them. Not safe for concurrent use (one per request).
type requestVars struct {
	a *Attributes
	// object, when set, is the JSON of the object to show instead of
	// a.Object (a mutating webhook's view after earlier patches).
	object []byte
	once   sync.Once
	act    celpolicy.Activation
	err    error
}

// activation returns object, oldObject, request and namespaceObject.
func (r *requestVars) activation(ctx context.Context, m *matcher) (celpolicy.Activation, error) {
	r.once.Do(func() {
		a := r.a
		act := celpolicy.Activation{}
		switch {
		case r.object != nil:
			if act[celpolicy.VarObject], r.err = celpolicy.FromJSON(r.object); r.err != nil {
				return
			}
		case a.Object != nil:
			if act[celpolicy.VarObject], r.err = celpolicy.ToValue(a.Object); r.err != nil {
				return
			}
		}
		if a.OldObject != nil {
			if act[celpolicy.VarOldObject], r.err = celpolicy.ToValue(a.OldObject); r.err != nil {
				return
			}
		}
		act[celpolicy.VarRequest] = requestValue(a)
		if a.Namespace != "" && m.namespaces != nil {
			if ns, ok := m.namespaces.GetNamespace(a.Namespace); ok {
				act[celpolicy.VarNamespaceObject], r.err = celpolicy.ToValue(ns)
			}
		}
		r.act = act
	})
	return r.act, r.err
}

// requestValue is the request variable as Kubernetes gives it to CEL.
func requestValue(a *Attributes) map[string]any {
	kind := map[string]any{"group": a.Kind.Group, "version": a.Kind.Version, "kind": a.Kind.Kind}
	res := map[string]any{"group": a.Resource.Group, "version": a.Resource.Version, "resource": a.Resource.Resource}
	user := map[string]any{}
	if a.User != nil {
		groups := make([]any, len(a.User.Groups))
		for i, g := range a.User.Groups {
			groups[i] = g
		}
		user = map[string]any{"username": a.User.Name, "uid": a.User.UID, "groups": groups}
	}
	return map[string]any{
		"kind": kind, "resource": res, "subResource": a.Subresource,
		"requestKind": kind, "requestResource": res, "requestSubResource": a.Subresource,
		"name": a.Name, "namespace": a.Namespace, "operation": string(a.Operation),
		"userInfo": user, "dryRun": a.DryRun,
	}
}

// evaluate returns the failed validations of policy p under binding b for
// the request, or nil when p or b does not apply. Evaluation errors
// follow p's failurePolicy.
func (v *ValidatingAdmissionPolicy) evaluate(ctx context.Context, p *admissionregistration.ValidatingAdmissionPolicy, b *admissionregistration.ValidatingAdmissionPolicyBinding, req *requestVars) ([]decision, error) {
	a := req.a
	if ok, err := v.match.matchesResources(ctx, p.Spec.MatchConstraints, a, false); !ok || err != nil {
		return nil, err
	}
	if ok, err := v.match.matchesResources(ctx, b.Spec.MatchResources, a, true); !ok || err != nil {
		return nil, err
	}
	fail := func(err error) []decision {
		if p.Spec.FailurePolicy != nil && *p.Spec.FailurePolicy == admissionregistration.Ignore {
			v.log.WarnContext(ctx, "admission: validating admission policy failed, ignored", "policy", p.Name, "binding", b.Name, "err", err)
			return nil
		}
		return []decision{{policy: p.Name, binding: b.Name, message: err.Error(), actions: b.Spec.ValidationActions}}
	}
	c := v.compile(p)
	if c.err != nil {
		return fail(fmt.Errorf("failed to compile: %w", c.err)), nil
	}
	base, err := req.activation(ctx, &v.match)
	if err != nil {
		return fail(err), nil
	}
	params, err := v.selectParams(ctx, p, b, a)
	if err != nil {
		return fail(err), nil
	}
	var out []decision
	for _, param := range params {
		act := make(celpolicy.Activation, len(base)+2)
		for k, x := range base {
			act[k] = x
		}
		act[celpolicy.VarParams] = param
		ds, err := v.evaluateOne(p, b, c, act)
		if err != nil {
			out = append(out, fail(err)...)
			continue
		}
		out = append(out, ds...)
	}
	return out, nil
}

// evaluateOne runs the variables, matchConditions and validations with
// one set of params. A matchCondition that is false means no decision.
func (v *ValidatingAdmissionPolicy) evaluateOne(p *admissionregistration.ValidatingAdmissionPolicy, b *admissionregistration.ValidatingAdmissionPolicyBinding, c *compiledPolicy, act celpolicy.Activation) ([]decision, error) {
	vars := map[string]any{}
	act[celpolicy.VarVariables] = vars
	for _, vr := range c.variables {
		val, err := vr.prog.Eval(act)
		if err != nil {
			return nil, fmt.Errorf("variable %q resulted in error: %w", vr.name, err)
		}
		vars[vr.name] = val
	}
	for i, cond := range c.conditions {
		ok, err := cond.EvalBool(act)
		if err != nil {
			return nil, fmt.Errorf("failed to evaluate matchCondition %q: %w", p.Spec.MatchConditions[i].Name, err)
		}
		if !ok {
			return nil, nil
		}
	}
	var out []decision
	for _, cv := range c.validations {
		ok, err := cv.prog.EvalBool(act)
		if err != nil {
			return nil, fmt.Errorf("expression '%s' resulted in error: %w", cv.v.Expression, err)
		}
		if ok {
			continue
		}
		out = append(out, decision{policy: p.Name, binding: b.Name, message: validationMessage(cv, act),
			reason: cv.v.StatusReason(), actions: b.Spec.ValidationActions})
	}
	return out, nil
}

// validationMessage is the message of a failed validation: its
// messageExpression's result when that gives a non-empty single line, else
// its message, else "failed expression: <expression>".
func validationMessage(cv compiledValidation, act celpolicy.Activation) string {
	if cv.message != nil {
		if s, err := cv.message.Eval(act); err == nil {
			if str, ok := s.(string); ok && strings.TrimSpace(str) != "" && !strings.ContainsAny(str, "\r\n") {
				return strings.TrimSpace(str)
			}
		}
	}
	if cv.v.Message != "" {
		return cv.v.Message
	}
	return "failed expression: " + strings.TrimSpace(cv.v.Expression)
}
