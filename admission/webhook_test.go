package admission

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/authn"
	"github.com/orkit/orkit/internal/webhooktest"
)

func ptr[T any](v T) *T { return &v }

// podRule matches pod creates.
var podRule = admissionregistration.RuleWithOperations{
	Operations: []admissionregistration.OperationType{admissionregistration.Create},
	Rule:       admissionregistration.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
}

// vhook is a validating webhook at s with kube's defaults.
func vhook(name string, s *webhooktest.Server, mod ...func(*admissionregistration.ValidatingWebhook)) admissionregistration.ValidatingWebhook {
	c := admissionregistration.ValidatingWebhookConfiguration{Webhooks: []admissionregistration.ValidatingWebhook{{
		Name: name, ClientConfig: admissionregistration.WebhookClientConfig{URL: ptr(s.URL + "/"), CABundle: s.CABundle},
		Rules: []admissionregistration.RuleWithOperations{podRule}, SideEffects: ptr(admissionregistration.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}}}
	admissionregistration.DefaultValidatingWebhookConfiguration(&c)
	for _, m := range mod {
		m(&c.Webhooks[0])
	}
	return c.Webhooks[0]
}

func validatingPlugin(hooks ...admissionregistration.ValidatingWebhook) *ValidatingWebhook {
	cfg := &admissionregistration.ValidatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: "c"}, Webhooks: hooks}
	return NewValidatingWebhook(func() []*admissionregistration.ValidatingWebhookConfiguration {
		return []*admissionregistration.ValidatingWebhookConfiguration{cfg}
	}, WebhookConfig{Namespaces: newNSMap(&core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "default", Labels: map[string]string{"env": "dev"}}})})
}

func podCreate(name string, lbls map[string]string) *Attributes {
	p := pod("default", name, container("c", nil, nil))
	p.Labels = lbls
	a := attrs(Create, "pods", "default", name, p)
	a.Kind = meta.GroupVersionKind{Version: "v1", Kind: "Pod"}
	a.User = &authn.User{Name: "alice", Groups: []string{"devs"}}
	return a
}

// warnings is a WarningRecorder for tests.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) AddWarning(s string) { w.mu.Lock(); w.list = append(w.list, s); w.mu.Unlock() }

func TestRuleMatches(t *testing.T) {
	rule := func(ops []admissionregistration.OperationType, res []string, scope admissionregistration.ScopeType) *admissionregistration.RuleWithOperations {
		return &admissionregistration.RuleWithOperations{Operations: ops,
			Rule: admissionregistration.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: res, Scope: &scope}}
	}
	create := []admissionregistration.OperationType{admissionregistration.Create}
	all := []admissionregistration.OperationType{admissionregistration.OperationAll}
	status := &Attributes{Operation: Update, Resource: gvr("pods"), Subresource: "status", Namespace: "ns"}
	tests := []struct {
		name string
		rule *admissionregistration.RuleWithOperations
		a    *Attributes
		want bool
	}{
		{"resource", rule(create, []string{"pods"}, "*"), podCreate("p", nil), true},
		{"other operation", rule(create, []string{"pods"}, "*"), status, false},
		{"star has no subresources", rule(all, []string{"*"}, "*"), status, false},
		{"pods/*", rule(all, []string{"pods/*"}, "*"), status, true},
		{"*/status", rule(all, []string{"*/status"}, "*"), status, true},
		{"pods/status", rule(all, []string{"pods/status"}, "*"), status, true},
		{"pods without status", rule(all, []string{"pods"}, "*"), status, false},
		{"cluster scope excludes namespaced", rule(all, []string{"pods/*"}, "Cluster"), status, false},
		{"namespaced scope", rule(all, []string{"pods/*"}, "Namespaced"), status, true},
		{"namespaces are cluster-scoped", rule(all, []string{"namespaces"}, "Cluster"),
			&Attributes{Operation: Create, Resource: gvr("namespaces"), Namespace: "x", Name: "x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, ruleMatches(tt.rule, tt.a)) })
	}
}

func TestValidatingWebhookDenies(t *testing.T) {
	var got *admissionreview.AdmissionRequest
	s := webhooktest.Start(t, func(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		got = req
		return &admissionreview.AdmissionResponse{Warnings: []string{"careful"}, Result: &meta.Status{Code: 403, Message: "no"}}
	})
	w := &warnings{}
	ctx := WithWarningRecorder(context.Background(), w)
	err := validatingPlugin(vhook("deny.example.com", s)).Validate(ctx, podCreate("p", nil))
	requireStatus(t, err, 403, `admission webhook "deny.example.com" denied the request: no`)
	assert.Equal(t, []string{"careful"}, w.list)
	require.NotNil(t, got)
	assert.Equal(t, "CREATE", got.Operation)
	assert.Equal(t, "alice", got.UserInfo.Username)
	assert.Equal(t, admissionreview.GroupVersionResource{Version: "v1", Resource: "pods"}, got.Resource)
	assert.Contains(t, string(got.Object), `"name":"p"`)
	assert.Contains(t, string(got.Options), `"kind":"CreateOptions"`)
}

func TestValidatingWebhookSelectors(t *testing.T) {
	s := webhooktest.Start(t, webhooktest.Deny("no"))
	tests := []struct {
		name   string
		mod    func(*admissionregistration.ValidatingWebhook)
		labels map[string]string
		called bool
	}{
		{"defaults match", func(*admissionregistration.ValidatingWebhook) {}, nil, true},
		{"object selector misses", func(h *admissionregistration.ValidatingWebhook) {
			h.ObjectSelector = &meta.LabelSelector{MatchLabels: map[string]string{"check": "yes"}}
		}, nil, false},
		{"object selector matches", func(h *admissionregistration.ValidatingWebhook) {
			h.ObjectSelector = &meta.LabelSelector{MatchLabels: map[string]string{"check": "yes"}}
		}, map[string]string{"check": "yes"}, true},
		{"namespace selector matches", func(h *admissionregistration.ValidatingWebhook) {
			h.NamespaceSelector = &meta.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}
		}, nil, true},
		{"namespace selector misses", func(h *admissionregistration.ValidatingWebhook) {
			h.NamespaceSelector = &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "env", Operator: meta.LabelSelectorOpNotIn, Values: []string{"dev"}}}}
		}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validatingPlugin(vhook("sel.example.com", s, tt.mod)).Validate(context.Background(), podCreate("p", tt.labels))
			assert.Equal(t, tt.called, err != nil, "err %v", err)
		})
	}
}

func TestValidatingWebhookFailurePolicy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := l.Addr().String()
	require.NoError(t, l.Close())
	s := webhooktest.Start(t, webhooktest.Allow)
	at := func(h *admissionregistration.ValidatingWebhook) { h.ClientConfig.URL = ptr("https://" + down + "/") }
	err = validatingPlugin(vhook("down.example.com", s, at)).Validate(context.Background(), podCreate("p", nil))
	st := requireStatus(t, err, 500, err.Error())
	assert.Contains(t, st.Message, `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://`+down+`/?timeout=10s"`)

	ignore := func(h *admissionregistration.ValidatingWebhook) {
		at(h)
		h.FailurePolicy = ptr(admissionregistration.Ignore)
	}
	assert.NoError(t, validatingPlugin(vhook("down.example.com", s, ignore)).Validate(context.Background(), podCreate("p", nil)))

	wrongCA := webhooktest.Start(t, webhooktest.Allow)
	badCA := func(h *admissionregistration.ValidatingWebhook) { h.ClientConfig.CABundle = wrongCA.CABundle }
	err = validatingPlugin(vhook("ca.example.com", s, badCA)).Validate(context.Background(), podCreate("p", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate signed by unknown authority")
}

func TestValidatingWebhookBadResponse(t *testing.T) {
	s := webhooktest.Start(t, func(w *http.Request, _ *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		return nil // an empty 200: not an AdmissionReview
	})
	err := validatingPlugin(vhook("bad.example.com", s)).Validate(context.Background(), podCreate("p", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `failed calling webhook "bad.example.com": received invalid webhook response`)
}

func TestWebhookDryRun(t *testing.T) {
	s := webhooktest.Start(t, webhooktest.Allow)
	some := func(h *admissionregistration.ValidatingWebhook) {
		h.SideEffects = ptr(admissionregistration.SideEffectClassSome)
	}
	a := podCreate("p", nil)
	a.DryRun = true
	err := validatingPlugin(vhook("side.example.com", s, some)).Validate(context.Background(), a)
	requireStatus(t, err, 400, `admission webhook "side.example.com" does not support dry run`)
	assert.Zero(t, s.Calls.Load(), "not called")
	require.NoError(t, validatingPlugin(vhook("none.example.com", s)).Validate(context.Background(), a))
	assert.Equal(t, int64(1), s.Calls.Load(), "sideEffects None is called on dry runs")
}

func mutatingPlugin(hooks ...admissionregistration.MutatingWebhook) *MutatingWebhook {
	cfg := &admissionregistration.MutatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: "m"}, Webhooks: hooks}
	admissionregistration.DefaultMutatingWebhookConfiguration(cfg)
	return NewMutatingWebhook(func() []*admissionregistration.MutatingWebhookConfiguration {
		return []*admissionregistration.MutatingWebhookConfiguration{cfg}
	}, WebhookConfig{}, nil)
}

func mhook(name string, s *webhooktest.Server, reinvoke admissionregistration.ReinvocationPolicyType) admissionregistration.MutatingWebhook {
	return admissionregistration.MutatingWebhook{
		Name: name, ClientConfig: admissionregistration.WebhookClientConfig{URL: ptr(s.URL + "/"), CABundle: s.CABundle},
		Rules: []admissionregistration.RuleWithOperations{podRule}, SideEffects: ptr(admissionregistration.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"}, ReinvocationPolicy: &reinvoke,
	}
}

func TestMutatingWebhookPatchAndReinvocation(t *testing.T) {
	// first adds a label and is reinvoked after second adds an annotation.
	first := webhooktest.Start(t, webhooktest.Patch(`[{"op":"add","path":"/metadata/labels","value":{"first":"yes"}}]`))
	second := webhooktest.Start(t, webhooktest.Patch(`[{"op":"add","path":"/metadata/annotations","value":{"second":"yes"}}]`))
	a := podCreate("p", nil)
	p := mutatingPlugin(mhook("first.example.com", first, admissionregistration.IfNeededReinvocationPolicy),
		mhook("second.example.com", second, admissionregistration.NeverReinvocationPolicy))
	require.NoError(t, p.Admit(context.Background(), a))
	got := a.Object.(*core.Pod)
	assert.Equal(t, map[string]string{"first": "yes"}, got.Labels)
	assert.Equal(t, map[string]string{"second": "yes"}, got.Annotations)
	assert.Equal(t, "c", got.Spec.Containers[0].Name, "the rest of the object kept")
	assert.Equal(t, int64(2), first.Calls.Load(), "reinvoked after the second changed the object")
	assert.Equal(t, int64(1), second.Calls.Load())

	never := mutatingPlugin(mhook("first.example.com", first, admissionregistration.NeverReinvocationPolicy),
		mhook("second.example.com", second, admissionregistration.NeverReinvocationPolicy))
	require.NoError(t, never.Admit(context.Background(), podCreate("q", nil)))
	assert.Equal(t, int64(3), first.Calls.Load(), "Never: called once")
}

func TestMutatingWebhookBadPatch(t *testing.T) {
	noType := webhooktest.Start(t, func(*http.Request, *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		return &admissionreview.AdmissionResponse{Allowed: true, Patch: []byte(`[]`)}
	})
	err := mutatingPlugin(mhook("notype.example.com", noType, "Never")).Admit(context.Background(), podCreate("p", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "webhook returned response.patch but not response.patchType")

	failing := webhooktest.Start(t, webhooktest.Patch(`[{"op":"remove","path":"/spec/nothing"}]`))
	a := podCreate("p", nil)
	err = mutatingPlugin(mhook("fails.example.com", failing, "Never")).Admit(context.Background(), a)
	requireStatus(t, err, 500, err.Error())
	assert.Nil(t, a.Object.(*core.Pod).Labels, "object untouched")
}

func TestWebhookMatchConditions(t *testing.T) {
	s := webhooktest.Start(t, webhooktest.Deny("no"))
	cond := func(expr string) func(*admissionregistration.ValidatingWebhook) {
		return func(h *admissionregistration.ValidatingWebhook) {
			h.MatchConditions = []admissionregistration.MatchCondition{{Name: "c", Expression: expr}}
		}
	}
	ctx := context.Background()
	assert.NoError(t, validatingPlugin(vhook("mc.example.com", s, cond("object.metadata.name != 'p'"))).Validate(ctx, podCreate("p", nil)), "condition false: not called")
	assert.Error(t, validatingPlugin(vhook("mc.example.com", s, cond("request.userInfo.username == 'alice'"))).Validate(ctx, podCreate("p", nil)))
	err := validatingPlugin(vhook("mc.example.com", s, cond("object.nothing == 1"))).Validate(ctx, podCreate("p", nil))
	requireStatus(t, err, 500, err.Error())
	assert.Contains(t, err.Error(), `failed calling webhook "mc.example.com": failed to evaluate match condition "c"`)
	assert.Equal(t, int64(1), s.Calls.Load())
}

func TestMutatingWebhookConditionsSeePatchedObject(t *testing.T) {
	first := webhooktest.Start(t, webhooktest.Patch(`[{"op":"add","path":"/metadata/labels","value":{"seen":"first"}}]`))
	second := webhooktest.Start(t, webhooktest.Patch(`[{"op":"add","path":"/metadata/annotations","value":{"second":"yes"}}]`))
	h2 := mhook("second.example.com", second, admissionregistration.NeverReinvocationPolicy)
	h2.MatchConditions = []admissionregistration.MatchCondition{{Name: "after-first", Expression: "has(object.metadata.labels) && object.metadata.labels.seen == 'first'"}}
	a := podCreate("p", nil)
	require.NoError(t, mutatingPlugin(mhook("first.example.com", first, admissionregistration.NeverReinvocationPolicy), h2).Admit(context.Background(), a))
	assert.Equal(t, map[string]string{"second": "yes"}, a.Object.(*core.Pod).Annotations, "the condition saw the first webhook's label")
}

// TestWebhooksSkipAdmissionConfigurations: a webhook whose rules select
// every resource denies a ConfigMap but is not called for the admission
// configurations (webhook configurations and admission policies with
// their bindings), as kube-apiserver exempts them.
func TestWebhooksSkipAdmissionConfigurations(t *testing.T) {
	var calls atomic.Int32
	s := webhooktest.Start(t, func(*http.Request, *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		calls.Add(1)
		return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: 403, Message: "no"}}
	})
	everything := func(w *admissionregistration.ValidatingWebhook) {
		w.Rules = []admissionregistration.RuleWithOperations{{
			Operations: []admissionregistration.OperationType{admissionregistration.OperationAll},
			Rule:       admissionregistration.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
		}}
	}
	p := validatingPlugin(vhook("all.example.com", s, everything))
	for _, res := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations", "validatingadmissionpolicies",
		"validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"} {
		t.Run(res, func(t *testing.T) {
			for _, op := range []Operation{Create, Update, Delete} {
				a := &Attributes{Operation: op, Resource: meta.GroupVersionResource{Group: admissionregistration.GroupName, Version: "v1", Resource: res},
					Name: "x", User: &authn.User{Name: "alice"}}
				require.NoError(t, p.Validate(context.Background(), a), op)
			}
		})
	}
	assert.Zero(t, calls.Load(), "never called for the configurations")
	cm := attrs(Create, "configmaps", "default", "c", nil)
	cm.User = &authn.User{Name: "alice"}
	requireStatus(t, p.Validate(context.Background(), cm), 403, `admission webhook "all.example.com" denied the request: no`)
	assert.Equal(t, int32(1), calls.Load())
}
