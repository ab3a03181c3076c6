package apiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/autoscaling"
)

const (
	hpaV1Path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpaV2Path = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
)

// TestHPAV1ViewOfV2: autoscaling/v1 reads, lists, watches, updates,
// patches and deletes the autoscalers stored as v2, and what v1 has no
// field for survives its writes in kube's annotations.
func TestHPAV1ViewOfV2(t *testing.T) {
	ts := newTestServer(t, nil)
	next, code, stop := ts.watchStream(t, hpaV1Path+"?watch=1")
	require.Equal(t, http.StatusOK, code)
	defer stop()

	v2 := `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},"spec":{` +
		`"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"minReplicas":2,"maxReplicas":9,"metrics":[` +
		`{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}},` +
		`{"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"10"}}}],` +
		`"behavior":{"scaleDown":{"stabilizationWindowSeconds":30}}}}`
	code, out := ts.do(t, "POST", hpaV2Path, "application/json", []byte(v2))
	require.Equal(t, http.StatusCreated, code, string(out))

	code, out = ts.do(t, "GET", hpaV1Path+"/web", "", nil)
	require.Equal(t, http.StatusOK, code, string(out))
	var h1 autoscaling.HorizontalPodAutoscalerV1
	require.NoError(t, json.Unmarshal(out, &h1))
	assert.Equal(t, "autoscaling/v1", h1.APIVersion)
	require.NotNil(t, h1.Spec.TargetCPUUtilizationPercentage)
	assert.Equal(t, int32(60), *h1.Spec.TargetCPUUtilizationPercentage)
	assert.JSONEq(t, `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`, h1.Annotations[autoscaling.AnnotationMetrics])
	assert.Contains(t, h1.Annotations[autoscaling.AnnotationBehavior], `"StabilizationWindowSeconds":30`)

	ev, err := next()
	require.NoError(t, err)
	assert.Equal(t, "ADDED", ev.Type)
	assert.Contains(t, string(ev.Object), `"targetCPUUtilizationPercentage":60`)

	// Update through v1 (PUT of what was read, with a new CPU target).
	h1.Spec.TargetCPUUtilizationPercentage = ptr32(75)
	b, _ := json.Marshal(h1)
	code, out = ts.do(t, "PUT", hpaV1Path+"/web", "application/json", b)
	require.Equal(t, http.StatusOK, code, string(out))
	code, out = ts.do(t, "GET", hpaV2Path+"/web", "", nil)
	require.Equal(t, http.StatusOK, code)
	var h2 autoscaling.HorizontalPodAutoscaler
	require.NoError(t, json.Unmarshal(out, &h2))
	require.Len(t, h2.Spec.Metrics, 2, "the Pods metric survived the v1 update: %s", out)
	assert.Equal(t, "qps", h2.Spec.Metrics[0].Pods.Metric.Name)
	assert.Equal(t, int32(75), *h2.Spec.Metrics[1].Resource.Target.AverageUtilization)
	require.NotNil(t, h2.Spec.Behavior)
	assert.Equal(t, int32(30), *h2.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)
	assert.Empty(t, h2.Annotations, "no round-trip annotation is stored")
	ev, err = next()
	require.NoError(t, err)
	assert.Equal(t, "MODIFIED", ev.Type)

	// Patch through v1, status through v1, list both.
	code, out = ts.do(t, "PATCH", hpaV1Path+"/web", "application/merge-patch+json", []byte(`{"spec":{"maxReplicas":12}}`))
	require.Equal(t, http.StatusOK, code, string(out))
	assert.Contains(t, string(out), `"maxReplicas":12`)
	code, out = ts.do(t, "PATCH", hpaV1Path+"/web/status", "application/merge-patch+json",
		[]byte(`{"status":{"currentReplicas":3,"desiredReplicas":4,"currentCPUUtilizationPercentage":55}}`))
	require.Equal(t, http.StatusOK, code, string(out))
	code, out = ts.do(t, "GET", hpaV2Path+"/web", "", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(out), `"desiredReplicas":4`)
	assert.Contains(t, string(out), `"averageUtilization":55`)
	assert.Contains(t, string(out), `"maxReplicas":12`)
	for _, q := range []string{"", "?limit=1"} {
		code, out = ts.do(t, "GET", hpaV1Path+q, "", nil)
		require.Equal(t, http.StatusOK, code)
		assert.Contains(t, string(out), `"kind":"HorizontalPodAutoscalerList","apiVersion":"autoscaling/v1"`)
		assert.Contains(t, string(out), `"targetCPUUtilizationPercentage":75`)
	}

	// Validation is v2's, on the converted object; nothing is stored.
	code, out = ts.do(t, "POST", hpaV1Path, "application/json",
		[]byte(`{"metadata":{"name":"bad"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"x"},"maxReplicas":0}}`))
	assert.Equal(t, http.StatusUnprocessableEntity, code, string(out))
	assert.Contains(t, string(out), "HorizontalPodAutoscaler.autoscaling")
	code, _ = ts.do(t, "GET", hpaV2Path+"/bad", "", nil)
	assert.Equal(t, http.StatusNotFound, code)
	code, out = ts.do(t, "POST", hpaV1Path, "application/json", []byte(`{"metadata":{"name":"m"},"spec":`))
	assert.Equal(t, http.StatusBadRequest, code, string(out))

	code, _ = ts.do(t, "DELETE", hpaV1Path+"/web", "", nil)
	require.Equal(t, http.StatusOK, code)
	code, _ = ts.do(t, "GET", hpaV2Path+"/web", "", nil)
	assert.Equal(t, http.StatusNotFound, code)
}

func ptr32(v int32) *int32 { return &v }
