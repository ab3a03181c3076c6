package controlplane

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/scheduling"
)

func podWithClass(name, class string, priority *int32) map[string]any {
	spec := map[string]any{"containers": []map[string]any{{"name": "c", "image": "orkit.local/hello:v1"}}}
	if class != "" {
		spec["priorityClassName"] = class
	}
	if priority != nil {
		spec["priority"] = *priority
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec}
}

// TestPriorityAdmission drives the Priority plugin through the API
// server: the system classes exist at bootstrap, a pod gets its class's
// priority and preemption policy (or the global default's), and an
// unknown class, a conflicting priority or a second default are refused
// with Kubernetes' messages.
func TestPriorityAdmission(t *testing.T) {
	tokens := writeFile(t, "tokens.csv", "admin-token,admin,0,\"system:masters\"\n")
	cp := start(t, Config{Auth: AuthConfig{TokenFile: tokens}})
	admin := bearer("admin-token")
	const pods = "/api/v1/namespaces/default/pods"
	const classes = "/apis/scheduling.k8s.io/v1/priorityclasses"

	for name, value := range map[string]int32{scheduling.SystemNodeCritical: 2000001000, scheduling.SystemClusterCritical: 2000000000} {
		code, body := call(t, cp, http.MethodGet, classes+"/"+name, nil, admin)
		require.Equal(t, http.StatusOK, code, body)
		var pc scheduling.PriorityClass
		require.NoError(t, json.Unmarshal([]byte(body), &pc))
		assert.Equal(t, value, pc.Value, name)
	}

	createPod := func(name, class string, priority *int32) (int, *core.Pod, string) {
		code, body := call(t, cp, http.MethodPost, pods, podWithClass(name, class, priority), admin)
		var p core.Pod
		if code == http.StatusCreated {
			require.NoError(t, json.Unmarshal([]byte(body), &p))
		}
		return code, &p, body
	}
	code, p, body := createPod("critical", scheduling.SystemNodeCritical, nil)
	require.Equal(t, http.StatusCreated, code, body)
	assert.Equal(t, int32(2000001000), *p.Spec.Priority)
	assert.Equal(t, core.PreemptLowerPriority, *p.Spec.PreemptionPolicy)

	code, p, body = createPod("plain", "", nil)
	require.Equal(t, http.StatusCreated, code, body)
	assert.Equal(t, int32(0), *p.Spec.Priority, "no default class")
	assert.Empty(t, p.Spec.PriorityClassName)

	// A class created just before the pod naming it is found (the cache
	// may not have it yet; the plugin falls back to storage).
	code, body = call(t, cp, http.MethodPost, classes, map[string]any{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
		"metadata": map[string]any{"name": "batch"}, "value": 10, "globalDefault": true, "preemptionPolicy": "Never"}, admin)
	require.Equal(t, http.StatusCreated, code, body)
	code, p, body = createPod("job", "batch", nil)
	require.Equal(t, http.StatusCreated, code, body)
	assert.Equal(t, int32(10), *p.Spec.Priority)
	assert.Equal(t, core.PreemptNever, *p.Spec.PreemptionPolicy)

	code, body = call(t, cp, http.MethodPost, classes, map[string]any{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
		"metadata": map[string]any{"name": "another-default"}, "value": 20, "globalDefault": true}, admin)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, `priorityclasses.scheduling.k8s.io \"another-default\" is forbidden: PriorityClass batch is already marked as default. Only one default can exist`)

	code, body = call(t, cp, http.MethodPost, pods, podWithClass("missing", "nope", nil), admin)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, `pods \"missing\" is forbidden: no PriorityClass with name nope was found`)

	five := int32(5)
	code, body = call(t, cp, http.MethodPost, pods, podWithClass("forged", "batch", &five), admin)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, "the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name")

	// The default class now applies to pods that name none, and is named in them.
	n := 0
	require.Eventually(t, func() bool {
		n++
		code, p, _ := createPod(fmt.Sprintf("defaulted-%d", n), "", nil)
		return code == http.StatusCreated && p.Spec.PriorityClassName == "batch" && *p.Spec.Priority == 10
	}, 10*time.Second, 20*time.Millisecond, "the watch cache shows the default class")
}
