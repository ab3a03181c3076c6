package admission

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/admissionregistration"
	"github.com/orkit/orkit/api/admissionreview"
	"github.com/orkit/orkit/api/autoscaling"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/internal/webhooktest"
)

var (
	hpaV1  = meta.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	hpaV2  = meta.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	kindV1 = meta.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	kindV2 = meta.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
)

// hpaEquivalents maps autoscaling v1 and v2 HPAs onto each other and
// converts between them; kindless lists an equivalent without a kind.
type hpaEquivalents struct{ kindless bool }

func (e hpaEquivalents) EquivalentResources(r meta.GroupVersionResource, sub string) []EquivalentResource {
	if r != hpaV1 && r != hpaV2 {
		return nil
	}
	if e.kindless {
		return []EquivalentResource{{Resource: hpaV2}, {Resource: hpaV1}}
	}
	return []EquivalentResource{{Resource: hpaV2, Kind: kindV2}, {Resource: hpaV1, Kind: kindV1}}
}

func (hpaEquivalents) ConvertObject(_ context.Context, object []byte, to meta.GroupVersionKind) ([]byte, error) {
	switch to {
	case kindV1:
		var h autoscaling.HorizontalPodAutoscaler
		if err := json.Unmarshal(object, &h); err != nil {
			return nil, err
		}
		return json.Marshal(autoscaling.FromV2(&h))
	case kindV2:
		var h autoscaling.HorizontalPodAutoscalerV1
		if err := json.Unmarshal(object, &h); err != nil {
			return nil, err
		}
		return json.Marshal(h.ToV2())
	}
	return nil, errors.New("cannot convert to " + to.String())
}

func hpaRule(versions ...string) admissionregistration.RuleWithOperations {
	return admissionregistration.RuleWithOperations{
		Operations: []admissionregistration.OperationType{admissionregistration.Create},
		Rule:       admissionregistration.Rule{APIGroups: []string{"autoscaling"}, APIVersions: versions, Resources: []string{"horizontalpodautoscalers"}},
	}
}

func hpaCreate(t *testing.T) *Attributes {
	t.Helper()
	h := &autoscaling.HorizontalPodAutoscaler{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}}
	h.APIVersion, h.Kind = "autoscaling/v2", "HorizontalPodAutoscaler"
	v1 := &autoscaling.HorizontalPodAutoscalerV1{Spec: autoscaling.HorizontalPodAutoscalerSpecV1{MaxReplicas: 5,
		ScaleTargetRef:                 autoscaling.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
		TargetCPUUtilizationPercentage: ptr(int32(60))}}
	h.Spec = v1.ToV2().Spec
	return &Attributes{Operation: Create, Resource: hpaV2, Kind: kindV2, Namespace: "default", Name: "web", Object: h}
}

func TestMatchPolicyEquivalentRules(t *testing.T) {
	exact, equivalent := admissionregistration.Exact, admissionregistration.Equivalent
	tests := []struct {
		name     string
		policy   *admissionregistration.MatchPolicyType
		rules    []admissionregistration.RuleWithOperations
		mapper   EquivalentResourceMapper
		want     *meta.GroupVersionResource // nil: not called
		wantKind meta.GroupVersionKind
		wantErr  string
	}{
		{name: "exact rule", policy: &equivalent, rules: []admissionregistration.RuleWithOperations{hpaRule("v2")}, mapper: hpaEquivalents{},
			want: &hpaV2, wantKind: kindV2},
		{name: "equivalent version", policy: &equivalent, rules: []admissionregistration.RuleWithOperations{hpaRule("v1")}, mapper: hpaEquivalents{},
			want: &hpaV1, wantKind: kindV1},
		{name: "exact policy ignores equivalents", policy: &exact, rules: []admissionregistration.RuleWithOperations{hpaRule("v1")}, mapper: hpaEquivalents{}},
		{name: "nil policy is exact", rules: []admissionregistration.RuleWithOperations{hpaRule("v1")}, mapper: hpaEquivalents{}},
		{name: "no mapper: no equivalents", policy: &equivalent, rules: []admissionregistration.RuleWithOperations{hpaRule("v1")}},
		{name: "request's own version wins over an earlier equivalent rule", policy: &equivalent,
			rules: []admissionregistration.RuleWithOperations{hpaRule("v1"), hpaRule("v2")}, mapper: hpaEquivalents{}, want: &hpaV2, wantKind: kindV2},
		{name: "operation must still match", policy: &equivalent, mapper: hpaEquivalents{}, rules: []admissionregistration.RuleWithOperations{{
			Operations: []admissionregistration.OperationType{admissionregistration.Update}, Rule: hpaRule("v1").Rule}}},
		{name: "other group is no equivalent", policy: &equivalent, mapper: hpaEquivalents{}, rules: []admissionregistration.RuleWithOperations{{
			Operations: []admissionregistration.OperationType{admissionregistration.Create},
			Rule:       admissionregistration.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"horizontalpodautoscalers"}}}}},
		{name: "equivalent without a kind is a 500", policy: &equivalent, rules: []admissionregistration.RuleWithOperations{hpaRule("v1")},
			mapper: hpaEquivalents{kindless: true}, wantErr: "unable to convert to autoscaling/v1, Resource=horizontalpodautoscalers: unknown kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := matcher{equivalents: tt.mapper}
			if tt.mapper == nil {
				m.equivalents = nil
			}
			w := &admissionregistration.ValidatingWebhook{Name: "w", Rules: tt.rules, MatchPolicy: tt.policy}
			inv, err := m.matchesWebhook(context.Background(), w, hpaCreate(t))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, int32(500), apierrors.FromError(err).Code)
				assert.Contains(t, apierrors.FromError(err).Message, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.want == nil {
				assert.Nil(t, inv)
				return
			}
			require.NotNil(t, inv)
			assert.Equal(t, *tt.want, inv.Resource)
			assert.Equal(t, tt.wantKind, inv.Kind)
		})
	}
}

// TestWebhookCalledThroughEquivalentResource: a webhook registered for
// autoscaling/v1 HPAs (matchPolicy Equivalent) is called for an
// autoscaling/v2 request with the object converted to v1, kind and
// resource v1 and requestKind/requestResource v2; a mutating one's patch
// of the v1 object comes back converted to v2.
func TestWebhookCalledThroughEquivalentResource(t *testing.T) {
	seen := make(chan *admissionreview.AdmissionRequest, 4)
	deny := webhooktest.Start(t, func(_ *http.Request, req *admissionreview.AdmissionRequest) *admissionreview.AdmissionResponse {
		seen <- req
		return &admissionreview.AdmissionResponse{Result: &meta.Status{Code: http.StatusForbidden, Message: "v1 view denied"}}
	})
	cfg := WebhookConfig{Equivalents: hpaEquivalents{}, Converter: hpaEquivalents{}}
	v := vhook("v1.example.com", deny, func(w *admissionregistration.ValidatingWebhook) {
		w.Rules = []admissionregistration.RuleWithOperations{hpaRule("v1")}
	})
	vp := NewValidatingWebhook(func() []*admissionregistration.ValidatingWebhookConfiguration {
		return []*admissionregistration.ValidatingWebhookConfiguration{{ObjectMeta: meta.ObjectMeta{Name: "c"}, Webhooks: []admissionregistration.ValidatingWebhook{v}}}
	}, cfg)
	err := vp.Validate(context.Background(), hpaCreate(t))
	require.Error(t, err)
	assert.Equal(t, `admission webhook "v1.example.com" denied the request: v1 view denied`, apierrors.FromError(err).Message)
	req := <-seen
	assert.Equal(t, admissionreview.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}, req.Kind)
	assert.Equal(t, "v1", req.Resource.Version)
	assert.Equal(t, "v2", req.RequestKind.Version)
	assert.Equal(t, "v2", req.RequestResource.Version)
	var got autoscaling.HorizontalPodAutoscalerV1
	require.NoError(t, json.Unmarshal(req.Object, &got))
	assert.Equal(t, "autoscaling/v1", got.APIVersion)
	require.NotNil(t, got.Spec.TargetCPUUtilizationPercentage)
	assert.Equal(t, int32(60), *got.Spec.TargetCPUUtilizationPercentage)

	// Without a converter the call cannot be made: a 500 under Fail.
	vp = NewValidatingWebhook(func() []*admissionregistration.ValidatingWebhookConfiguration {
		return []*admissionregistration.ValidatingWebhookConfiguration{{ObjectMeta: meta.ObjectMeta{Name: "c"}, Webhooks: []admissionregistration.ValidatingWebhook{v}}}
	}, WebhookConfig{Equivalents: hpaEquivalents{}})
	err = vp.Validate(context.Background(), hpaCreate(t))
	require.Error(t, err)
	assert.Equal(t, int32(500), apierrors.FromError(err).Code)
	assert.Contains(t, apierrors.FromError(err).Message, "no converter configured")

	// Mutating: the v1 patch (target 80%) reaches the v2 object.
	patcher := webhooktest.Start(t, webhooktest.Patch(`[{"op":"replace","path":"/spec/targetCPUUtilizationPercentage","value":80}]`))
	mh := mhook("v1-mutator.example.com", patcher, admissionregistration.NeverReinvocationPolicy)
	mh.Rules = []admissionregistration.RuleWithOperations{hpaRule("v1")}
	mh.MatchPolicy = ptr(admissionregistration.Equivalent)
	mp := NewMutatingWebhook(func() []*admissionregistration.MutatingWebhookConfiguration {
		return []*admissionregistration.MutatingWebhookConfiguration{{ObjectMeta: meta.ObjectMeta{Name: "m"}, Webhooks: []admissionregistration.MutatingWebhook{mh}}}
	}, cfg, nil)
	a := hpaCreate(t)
	require.NoError(t, mp.Admit(context.Background(), a))
	h := a.Object.(*autoscaling.HorizontalPodAutoscaler)
	assert.Equal(t, "autoscaling/v2", h.APIVersion)
	require.Len(t, h.Spec.Metrics, 1)
	require.NotNil(t, h.Spec.Metrics[0].Resource)
	assert.Equal(t, int32(80), *h.Spec.Metrics[0].Resource.Target.AverageUtilization)
	assert.Equal(t, int64(1), patcher.Calls.Load())
}
