package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionreview"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/patch"
)

// MutatingWebhookLister lists the current MutatingWebhookConfigurations
// from a cache. The objects are shared: callers never change them. It must
// be safe for concurrent use.
type MutatingWebhookLister func() []*admissionregistration.MutatingWebhookConfiguration

// MutatingWebhook is the MutatingAdmissionWebhook plugin: the webhooks of
// the MutatingWebhookConfigurations (in name order, then webhook order)
// that match a request are called one after another over TLS, each seeing
// the object as the previous one left it; a JSONPatch in a response is
// applied (RFC 6902) and the result decoded into the request's object. A
// webhook with reinvocationPolicy IfNeeded is called once more when a
// later webhook changed the object after it. Denials and failures are
// reported as ValidatingWebhook reports them. Safe for concurrent use.
type MutatingWebhook struct {
	Handler
	list     MutatingWebhookLister
	match    matcher
	caller   *webhookCaller
	conds    programCache
	defaults func(meta.Object)
}

var _ Mutator = (*MutatingWebhook)(nil)

// NewMutatingWebhook returns the plugin reading configurations from list.
// defaults, when not nil, applies the defaults of an object's kind to an
// object a webhook patched, as kube-apiserver does.
func NewMutatingWebhook(list MutatingWebhookLister, cfg WebhookConfig, defaults func(meta.Object)) *MutatingWebhook {
	return &MutatingWebhook{
		Handler: Handler{PluginName: "MutatingAdmissionWebhook", Operations: []Operation{Create, Update, Delete, Connect}},
		list:    list, match: matcher{namespaces: cfg.Namespaces, lookup: cfg.NamespaceLookup, equivalents: cfg.Equivalents},
		caller: newWebhookCaller(cfg), defaults: defaults,
	}
}

// matchedMutating is a webhook that applies and the attributes it is
// called with (the request's, or an equivalent resource's).
type matchedMutating struct {
	hook *admissionregistration.MutatingWebhook
	inv  *Attributes
}

// invocation is one call of a webhook and the object it left.
type invocation struct {
	m   matchedMutating
	out []byte
}

// Admit calls the matching webhooks in order, then reinvokes those that
// asked for it and saw an object changed later.
func (m *MutatingWebhook) Admit(ctx context.Context, a *Attributes) error {
	hooks, err := m.matching(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	var cur []byte
	if a.Object != nil {
		if cur, err = json.Marshal(a.Object); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	orig := cur
	var calls []invocation
	for _, h := range hooks {
		if cur, err = m.callOne(ctx, h, a, cur); err != nil {
			return err
		}
		calls = append(calls, invocation{m: h, out: cur})
	}
	for _, c := range calls {
		if c.m.hook.ReinvocationPolicy == nil || *c.m.hook.ReinvocationPolicy != admissionregistration.IfNeededReinvocationPolicy {
			continue
		}
		if bytes.Equal(c.out, cur) {
			continue
		}
		if cur, err = m.callOne(ctx, c.m, a, cur); err != nil {
			return err
		}
	}
	if a.Object == nil || bytes.Equal(orig, cur) {
		return nil
	}
	return m.replace(a.Object, cur)
}

func (m *MutatingWebhook) matching(ctx context.Context, a *Attributes) ([]matchedMutating, error) {
	var out []matchedMutating
	for _, c := range sortedByName(m.list()) {
		for i := range c.Webhooks {
			h := &c.Webhooks[i]
			v := h.AsValidating()
			inv, err := m.match.matchesWebhook(ctx, &v, a)
			if err != nil {
				return nil, err
			}
			if inv != nil {
				out = append(out, matchedMutating{hook: h, inv: inv})
			}
		}
	}
	return out, nil
}

// callOne calls a matched webhook with object and returns the object as
// the webhook left it. A webhook matched through an equivalent resource
// sees (and patches) the object converted to that resource's version; the
// result is converted back to the request's.
func (m *MutatingWebhook) callOne(ctx context.Context, mm matchedMutating, a *Attributes, object []byte) ([]byte, error) {
	h := mm.hook
	// The conditions see the object as the previous webhooks left it.
	if ok, err := m.conds.conditionsMatch(ctx, h.Name, h.MatchConditions, &requestVars{a: a, object: object}, &m.match); !ok || err != nil {
		return object, m.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	if err := dryRunCheck(h.Name, h.SideEffects, a); err != nil {
		return object, m.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	review, sent, err := m.caller.reviewFor(ctx, a, mm.inv, object)
	if err != nil {
		return object, m.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	resp, err := m.caller.call(ctx, h.Name, &h.ClientConfig, h.TimeoutSeconds, review)
	if err == nil {
		err = checkPatchType(h.Name, resp)
	}
	if err != nil {
		return object, m.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	addResponseWarnings(ctx, resp)
	if !resp.Allowed {
		return nil, denied(h.Name, resp.Result)
	}
	if len(resp.Patch) == 0 || object == nil {
		return object, nil
	}
	out, err := patch.Apply(patch.JSONPatch, sent, resp.Patch, "")
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return m.caller.convertFor(ctx, out, mm.inv.Kind, a.Kind)
}

// checkPatchType refuses a patch without the JSONPatch type.
func checkPatchType(name string, resp *admissionreview.AdmissionResponse) error {
	if len(resp.Patch) == 0 {
		return nil
	}
	switch {
	case resp.PatchType == nil:
		return &callError{webhook: name, reason: errors.New("received invalid webhook response: webhook returned response.patch but not response.patchType")}
	case *resp.PatchType != admissionreview.PatchTypeJSONPatch:
		return &callError{webhook: name, reason: fmt.Errorf("received invalid webhook response: webhook returned invalid response.patchType of %q", *resp.PatchType)}
	}
	return nil
}

// replace decodes data into obj in place (the server holds obj), then
// applies the kind's defaults.
func (m *MutatingWebhook) replace(obj meta.Object, data []byte) error {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return apierrors.NewInternalError(fmt.Errorf("cannot patch an object of type %T", obj))
	}
	fresh := reflect.New(v.Elem().Type())
	if err := json.Unmarshal(data, fresh.Interface()); err != nil {
		return apierrors.NewInternalError(err)
	}
	v.Elem().Set(fresh.Elem())
	if m.defaults != nil {
		m.defaults(obj)
	}
	return nil
}
