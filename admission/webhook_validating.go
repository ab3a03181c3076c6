package admission

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/meta"
)

// ValidatingWebhookLister lists the current ValidatingWebhookConfigurations
// from a cache (the API server's watch cache), so a request does not list
// storage. The objects are shared: callers never change them. It must be
// safe for concurrent use.
type ValidatingWebhookLister func() []*admissionregistration.ValidatingWebhookConfiguration

// ValidatingWebhook is the ValidatingAdmissionWebhook plugin: for every
// webhook of every ValidatingWebhookConfiguration that matches a request,
// it POSTs an admission.k8s.io/v1 AdmissionReview over TLS, all matching
// webhooks in parallel; the first denial (in configuration and webhook
// order) rejects the request as `admission webhook "x" denied the
// request: <message>`. A webhook that cannot be called rejects the
// request with a 500 under failurePolicy Fail and is skipped under
// Ignore. Safe for concurrent use; it owns its HTTP clients.
type ValidatingWebhook struct {
	Handler
	list   ValidatingWebhookLister
	match  matcher
	caller *webhookCaller
	conds  programCache
}

var _ Validator = (*ValidatingWebhook)(nil)

// NewValidatingWebhook returns the plugin reading configurations from list.
func NewValidatingWebhook(list ValidatingWebhookLister, cfg WebhookConfig) *ValidatingWebhook {
	return &ValidatingWebhook{
		Handler: Handler{PluginName: "ValidatingAdmissionWebhook", Operations: []Operation{Create, Update, Delete, Connect}},
		list:    list, match: matcher{namespaces: cfg.Namespaces, lookup: cfg.NamespaceLookup, equivalents: cfg.Equivalents},
		caller: newWebhookCaller(cfg),
	}
}

// Validate calls the matching webhooks.
func (v *ValidatingWebhook) Validate(ctx context.Context, a *Attributes) error {
	hooks, err := v.matching(ctx, a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	var object []byte
	if a.Object != nil {
		if object, err = json.Marshal(a.Object); err != nil {
			return err
		}
	}
	req := &requestVars{a: a}
	errs := make([]error, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = v.callOne(ctx, h, a, object, req)
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// matching returns the webhooks that apply to a, in name order of their
// configurations (as kube sorts them).
func (v *ValidatingWebhook) matching(ctx context.Context, a *Attributes) ([]matchedValidating, error) {
	configs := sortedByName(v.list())
	var out []matchedValidating
	for _, c := range configs {
		for i := range c.Webhooks {
			h := &c.Webhooks[i]
			inv, err := v.match.matchesWebhook(ctx, h, a)
			if err != nil {
				return nil, err
			}
			if inv != nil {
				out = append(out, matchedValidating{hook: h, inv: inv})
			}
		}
	}
	return out, nil
}

// matchedValidating is a webhook that applies and the attributes it is
// called with (the request's, or an equivalent resource's).
type matchedValidating struct {
	hook *admissionregistration.ValidatingWebhook
	inv  *Attributes
}

func (v *ValidatingWebhook) callOne(ctx context.Context, m matchedValidating, a *Attributes, object []byte, req *requestVars) error {
	h := m.hook
	if ok, err := v.conds.conditionsMatch(ctx, h.Name, h.MatchConditions, req, &v.match); !ok || err != nil {
		return v.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	if err := dryRunCheck(h.Name, h.SideEffects, a); err != nil {
		return v.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	review, _, err := v.caller.reviewFor(ctx, a, m.inv, object)
	if err != nil {
		return v.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	resp, err := v.caller.call(ctx, h.Name, &h.ClientConfig, h.TimeoutSeconds, review)
	if err != nil {
		return v.caller.failure(ctx, h.Name, h.FailurePolicy, err)
	}
	addResponseWarnings(ctx, resp)
	if !resp.Allowed {
		return denied(h.Name, resp.Result)
	}
	return nil
}

// sortedByName returns a copy of objs sorted by name.
func sortedByName[T meta.Object](objs []T) []T {
	out := slices.Clone(objs)
	slices.SortStableFunc(out, func(a, b T) int {
		return strings.Compare(a.GetObjectMeta().Name, b.GetObjectMeta().Name)
	})
	return out
}
