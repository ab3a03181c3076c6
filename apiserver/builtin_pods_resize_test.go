package apiserver_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPodResizeSubresource: pods/resize (in-place vertical scaling) needs
// its own permission, changes only the containers' resources and resize
// policies, bumps the generation, and refuses what a resize may not do
// with Kubernetes' messages; ordinary updates may not change resources.
func TestPodResizeSubresource(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, fmt.Sprintf(podSubresourceRBAC, "resize", "get"), "apply", "-f", "-")
	const up = `{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}`

	_, errOut, err := kubectl(t, c.dev, "", "-n", "team", "patch", "pod", "web", "--subresource=resize", "-p", up)
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot patch resource "pods/resize" in API group "" in the namespace "team"`)
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "patch", "pod", "web", "-p", up)
	require.Error(t, err, "an ordinary update may not resize")
	assert.Contains(t, errOut, "pod updates may not change fields")

	mustKubectl(t, c.admin, fmt.Sprintf(podSubresourceRBAC, "resize", "get, patch, update"), "apply", "-f", "-")
	_, errOut, err = kubectl(t, c.dev, "", "-n", "team", "patch", "pod", "web", "--subresource=resize", "-p",
		`{"metadata":{"labels":{"app":"changed"}},"spec":{"activeDeadlineSeconds":5,"containers":[{"name":"app","image":"orkit.local/pause:v1","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}`)
	require.NoError(t, err, errOut)
	out := mustKubectl(t, c.admin, "", "-n", "team", "get", "pod", "web", "-o",
		"jsonpath={.metadata.generation} {.metadata.labels.app} {.spec.activeDeadlineSeconds} {.spec.containers[0].image} {.spec.containers[0].resources}")
	assert.Equal(t, `2 web  orkit.local/hello:v1 {"limits":{"cpu":"300m"},"requests":{"cpu":"150m","memory":"64Mi"}}`, out,
		"only the resources changed")

	// The subresource reads as the pod.
	raw := mustKubectl(t, c.admin, "", "get", "--raw", "/api/v1/namespaces/team/pods/web/resize")
	assert.Contains(t, raw, `"kind":"Pod"`)
	assert.Contains(t, raw, `"cpu":"300m"`)

	tests := []struct{ name, patch, wantErr string }{
		{"ephemeral storage", `{"spec":{"containers":[{"name":"app","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}`,
			"only cpu and memory resources are mutable"},
		{"limit removed", `{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":null}}}]}}`,
			"resource limits cannot be removed"},
		{"to Guaranteed", `{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"300m","memory":"64Mi"},"limits":{"memory":"64Mi"}}}]}}`,
			"Pod QOS Class may not change as a result of resizing"},
		{"malformed", `{"spec":`, "malformed JSON"},
		{"negative", `{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"-1"}}}]}}`, "must be greater than or equal to 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, c.admin, "", "-n", "team", "patch", "pod", "web", "--subresource=resize", "-p", tt.patch)
			require.Error(t, err)
			assert.Contains(t, errOut, tt.wantErr)
		})
	}
	out = mustKubectl(t, c.admin, "", "-n", "team", "get", "pod", "web", "-o", "jsonpath={.metadata.generation} {.spec.containers[0].resources}")
	assert.Equal(t, `2 {"limits":{"cpu":"300m"},"requests":{"cpu":"150m","memory":"64Mi"}}`, out, "refused resizes change nothing")

	discovery := mustKubectl(t, c.admin, "", "get", "--raw", "/api/v1")
	assert.True(t, strings.Contains(discovery, `"name":"pods/resize"`), "pods/resize is discovered")

	// A resize is held to the namespace's LimitRange, as a create is.
	mustKubectl(t, c.admin, `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"max","namespace":"team"},
"spec":{"limits":[{"type":"Container","max":{"cpu":"1"}}]}}`, "apply", "-f", "-")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, errOut, err := kubectl(t, c.admin, "", "-n", "team", "patch", "pod", "web", "--subresource=resize", "-p",
			`{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"2"}}}]}}`)
		if err != nil {
			assert.Contains(t, errOut, `pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2`)
			break
		}
		require.True(t, time.Now().Before(deadline), "a resize over the LimitRange's max was never refused")
		time.Sleep(50 * time.Millisecond) // polling until the admission plugin's informer has the LimitRange
	}
}
