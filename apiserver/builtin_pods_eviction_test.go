package apiserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
)

func evictionPod(phase core.PodPhase, ready, deleting bool) *core.Pod {
	p := &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}}}
	p.Status.Phase = phase
	st := meta.ConditionFalse
	if ready {
		st = meta.ConditionTrue
	}
	p.Status.Conditions = []core.PodCondition{{Type: core.PodReady, Status: st}}
	if deleting {
		now := meta.Now()
		p.DeletionTimestamp = &now
	}
	return p
}

func evictionBudget(allowed, healthy, desired int32) *policy.PodDisruptionBudget {
	return &policy.PodDisruptionBudget{
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", Generation: 1},
		Spec:       policy.PodDisruptionBudgetSpec{Selector: &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policy.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: allowed,
			CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: healthy},
	}
}

func TestCanIgnoreBudget(t *testing.T) {
	tests := []struct {
		name string
		pod  *core.Pod
		want bool
	}{
		{"running and ready", evictionPod(core.PodRunning, true, false), false},
		{"running, not ready", evictionPod(core.PodRunning, false, false), false},
		{"pending", evictionPod(core.PodPending, false, false), true},
		{"succeeded", evictionPod(core.PodSucceeded, false, false), true},
		{"failed", evictionPod(core.PodFailed, false, false), true},
		{"being deleted", evictionPod(core.PodRunning, true, true), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, canIgnoreBudget(tt.pod)) })
	}
}

func TestUnhealthyEvictable(t *testing.T) {
	always := policy.AlwaysAllow
	ifHealthy := policy.IfHealthyBudget
	tests := []struct {
		name   string
		ready  bool
		pdb    *policy.PodDisruptionBudget
		policy *policy.UnhealthyPodEvictionPolicyType
		want   bool
	}{
		{"ready pods take a disruption", true, evictionBudget(0, 3, 2), nil, false},
		{"unready pod, healthy budget", false, evictionBudget(0, 2, 2), nil, true},
		{"unready pod, budget short", false, evictionBudget(0, 1, 2), nil, false},
		{"unready pod, nothing desired", false, evictionBudget(0, 0, 0), nil, false},
		{"unready pod, AlwaysAllow", false, evictionBudget(0, 1, 2), &always, true},
		{"unready pod, IfHealthyBudget short", false, evictionBudget(0, 1, 2), &ifHealthy, false},
		{"ready pod, AlwaysAllow", true, evictionBudget(0, 1, 2), &always, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.pdb.Spec.UnhealthyPodEvictionPolicy = tt.policy
			assert.Equal(t, tt.want, unhealthyEvictable(evictionPod(core.PodRunning, tt.ready, false), tt.pdb))
		})
	}
}

func TestMatchingBudgets(t *testing.T) {
	pod := evictionPod(core.PodRunning, true, false)
	sel := func(s *meta.LabelSelector, ns string) *policy.PodDisruptionBudget {
		b := evictionBudget(1, 1, 1)
		b.Spec.Selector, b.Namespace = s, ns
		return b
	}
	web := &meta.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tests := []struct {
		name string
		pdb  *policy.PodDisruptionBudget
		want int
	}{
		{"matching", sel(web, "default"), 1},
		{"other labels", sel(&meta.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, "default"), 0},
		{"other namespace", sel(web, "prod"), 0},
		{"nil selector matches nothing", sel(nil, "default"), 0},
		{"empty selector matches everything", sel(&meta.LabelSelector{}, "default"), 1},
		{"invalid selector matches nothing", sel(&meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}, "default"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Len(t, matchingBudgets([]*policy.PodDisruptionBudget{tt.pdb}, pod), tt.want)
		})
	}
}

func TestDecrementBudget(t *testing.T) {
	now := meta.NewTime(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	stale := evictionBudget(1, 3, 2)
	stale.Generation = 2
	negative := evictionBudget(-1, 3, 2)
	full := evictionBudget(1, 3, 2)
	full.Status.DisruptedPods = map[string]meta.Time{}
	for i := range policy.MaxDisruptedPodSize + 1 {
		full.Status.DisruptedPods[string(rune('a'+i%26))+string(rune(i))] = now
	}
	tests := []struct {
		name     string
		pdb      *policy.PodDisruptionBudget
		code     int32
		message  string
		cause    string
		retry    int32
		allowed  int32
		wantCond string
	}{
		{"allowed 2 leaves 1", evictionBudget(2, 4, 2), 0, "", "", 0, 1, ""},
		{"allowed 1 leaves 0", evictionBudget(1, 3, 2), 0, "", "", 0, 0, policy.InsufficientPodsReason},
		{"nothing allowed", evictionBudget(0, 2, 2), 429, msgViolatesBudget,
			"The disruption budget web needs 2 healthy pods and has 2 currently", 0, 0, ""},
		{"generation not observed", stale, 429, msgViolatesBudget,
			"The disruption budget web is still being processed by the server.", 10, 0, ""},
		{"negative", negative, 403, `poddisruptionbudget.policy "web" is forbidden: pdb disruptions allowed is negative`, "", 0, 0, ""},
		{"too many disrupted", full, 403,
			`poddisruptionbudget.policy "web" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`, "", 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, err := decrementBudget(tt.pdb, "web-1", now)
			if tt.code != 0 {
				require.Error(t, err)
				st := apierrors.FromError(err)
				require.NotNil(t, st)
				assert.Equal(t, tt.code, st.Code)
				assert.Equal(t, tt.message, st.Message)
				if tt.cause != "" {
					require.Len(t, st.Details.Causes, 1)
					assert.Equal(t, policy.DisruptionBudgetCause, st.Details.Causes[0].Type)
					assert.Equal(t, tt.cause, st.Details.Causes[0].Message)
					assert.Equal(t, tt.retry, st.Details.RetryAfterSeconds)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.allowed, next.Status.DisruptionsAllowed)
			assert.Equal(t, map[string]meta.Time{"web-1": now}, next.Status.DisruptedPods)
			assert.Nil(t, tt.pdb.Status.DisruptedPods, "the input is not modified")
			c := policy.FindCondition(next.Status.Conditions, policy.DisruptionAllowedCondition)
			if tt.wantCond == "" {
				assert.Nil(t, c)
				return
			}
			require.NotNil(t, c)
			assert.Equal(t, tt.wantCond, c.Reason)
		})
	}
}

func evictionRequest(body, contentType string) (*http.Request, *Request) {
	r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods/web-1/eviction", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r, &Request{Info: &RequestInfo{Verb: "create", Namespace: "default", Name: "web-1", Resource: "pods", Subresource: "eviction"}}
}

func TestReadEviction(t *testing.T) {
	tests := []struct {
		name, body, contentType string
		code                    int32
		msg                     string
	}{
		{"minimal", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1"}}`, "application/json", 0, ""},
		{"no name", `{"apiVersion":"policy/v1","kind":"Eviction"}`, "", 0, ""},
		{"yaml", "apiVersion: policy/v1\nkind: Eviction\nmetadata:\n  name: web-1\n", "application/yaml", 0, ""},
		{"other pod", `{"metadata":{"name":"web-2"}}`, "application/json", 400, msgEvictionNameDiffs},
		{"malformed", `{"metadata":`, "application/json", 400, "the object provided is unrecognized or malformed"},
		{"empty", ``, "application/json", 400, "the request body is empty"},
		{"two values", `{} {}`, "application/json", 400, "more than one JSON value"},
		{"bad propagation", `{"deleteOptions":{"propagationPolicy":"Sideways"}}`, "application/json", 400, `propagationPolicy "Sideways" is not supported`},
		{"oversized", `{"metadata":{"name":"` + strings.Repeat("x", MaxRequestBodyBytes) + `"}}`, "application/json", 413, ""},
		{"wrong media type", `{}`, "text/plain", 415, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, req := evictionRequest(tt.body, tt.contentType)
			ev, err := readEviction(r, req)
			if tt.code == 0 {
				require.NoError(t, err)
				require.NotNil(t, ev.DeleteOptions, "delete options default to empty ones")
				return
			}
			st := apierrors.FromError(err)
			require.NotNil(t, st, "a Status error: %v", err)
			assert.Equal(t, tt.code, st.Code)
			assert.Contains(t, st.Message, tt.msg)
		})
	}
}

func TestEvictionDeleteRequestMergesDryRun(t *testing.T) {
	_, req := evictionRequest("", "")
	req.Query = url.Values{}
	opts := &meta.DeleteOptions{DryRun: []string{"All"}}
	del := (&Server{}).evictionDeleteRequest(req, opts)
	assert.Equal(t, []string{"All"}, del.Query["dryRun"])
	assert.Empty(t, req.Query["dryRun"], "the original query is not modified")
	assert.Equal(t, "", del.Info.Subresource)
	assert.Equal(t, "eviction", req.Info.Subresource)

	req.Query = url.Values{"dryRun": {"All"}}
	opts = &meta.DeleteOptions{}
	(&Server{}).evictionDeleteRequest(req, opts)
	assert.Equal(t, []string{"All"}, opts.DryRun, "a query dry run reaches the delete options")
}

// FuzzReadEviction feeds arbitrary bodies to the Eviction decoder: it
// never panics, and every refusal is a Status.
func FuzzReadEviction(f *testing.F) {
	f.Add(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1"},"deleteOptions":{"gracePeriodSeconds":0}}`)
	f.Add(`{"deleteOptions":{"dryRun":["All"],"preconditions":{"uid":"x","resourceVersion":"7"}}}`)
	f.Add(`{"metadata":{"name":5}}`)
	f.Fuzz(func(t *testing.T, body string) {
		r, req := evictionRequest(body, "application/json")
		ev, err := readEviction(r, req)
		if err != nil {
			require.NotNil(t, apierrors.FromError(err), "%v", err)
			return
		}
		require.NotNil(t, ev.DeleteOptions)
		if ev.Name != "" {
			require.Equal(t, "web-1", ev.Name)
		}
	})
}
