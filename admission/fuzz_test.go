package admission

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/stretchr/testify/require"
)

// FuzzAdmitPod runs arbitrary pods through LimitRanger,
// SecurityContextDeny, Privileged and ResourceQuota. No input may panic;
// every refusal is a Status; a pod the LimitRanger admits satisfies its
// Container max; and an admitted pod never takes a quota past its hard
// limits.
func FuzzAdmitPod(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"web"},"spec":{"containers":[{"name":"a"}]}}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1.5","memory":"1Gi"},"limits":{"cpu":"2"}}}]}}`))
	f.Add([]byte(`{"spec":{"initContainers":[{"name":"i","restartPolicy":"Always","resources":{"limits":{"cpu":"100m"}}}],"containers":[{"name":"a"}]}}`))
	f.Add([]byte(`{"spec":{"securityContext":{"runAsUser":0},"containers":[{"name":"a","securityContext":{"runAsUser":1}}]}}`))
	f.Add([]byte(`{"spec":{"overhead":{"cpu":"10m"},"containers":[{"name":"a","resources":{"limits":{"cpu":"1e3","example.com/gpu":"1"}}}]}}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"0"}}},{"name":"a"}]}}`))
	lr := limitRange(core.LimitRangeItem{Type: core.LimitTypeContainer, Max: rl("cpu", "2", "memory", "4Gi"),
		Default: rl("cpu", "1", "memory", "1Gi"), DefaultRequest: rl("cpu", "500m", "memory", "512Mi"),
		MaxLimitRequestRatio: rl("cpu", "4")}, core.LimitRangeItem{Type: core.LimitTypePod, Max: rl("cpu", "4")})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p core.Pod
		if json.Unmarshal(data, &p) != nil {
			return
		}
		p.Namespace, p.Name = "ns", "fuzz"
		ctx := context.Background()
		a := attrs(Create, "pods", "ns", "fuzz", &p)
		l := NewLimitRanger(listerOf(lr))
		require.NoError(t, l.Admit(ctx, a))
		limitErr := l.Validate(ctx, a)
		requireStatusOrNil(t, limitErr)
		if limitErr == nil {
			for _, c := range allContainers(&p) {
				if q, ok := c.Resources.Limits[core.ResourceCPU]; ok {
					require.LessOrEqual(t, q.MilliValue(), int64(2000), "admitted container %q over the max", c.Name)
				}
			}
		}
		requireStatusOrNil(t, NewSecurityContextDeny().Validate(ctx, a))
		requireStatusOrNil(t, NewPrivileged().Validate(ctx, a))

		store := newQuotaStore(quota("q", rl("pods", "1", "requests.cpu", "2", "limits.memory", "8Gi"), rl("requests.cpu", "1500m")))
		err := NewResourceQuota(store).Validate(ctx, a)
		requireStatusOrNil(t, err)
		used := store.get("ns", "q").Status.Used
		for name, hard := range store.get("ns", "q").Spec.Hard {
			if u, ok := used[name]; ok {
				require.LessOrEqual(t, u.Cmp(hard), 0, "quota %s over hard: %s > %s", name, u.String(), hard.String())
			}
		}
		if err != nil {
			require.Equal(t, 0, store.updates, "a refused pod charged the quota")
		}
	})
}

func requireStatusOrNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		require.NotNil(t, apierrors.FromError(err), "error without a Status: %v", err)
	}
}

// FuzzCheckResponse feeds arbitrary webhook answers to the response
// check: it returns a response or a callError, and never panics.
func FuzzCheckResponse(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":false,"status":{"code":403}}}`))
	f.Add([]byte(`{"response":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := checkResponse("f.example.com", "u", data)
		if (resp == nil) == (err == nil) {
			t.Fatalf("response %v and error %v", resp, err)
		}
		if resp != nil && resp.UID != "u" {
			t.Fatalf("uid %q accepted", resp.UID)
		}
	})
}
