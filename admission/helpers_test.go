package admission

import (
	"testing"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gvr returns the core/v1 resource of that name.
func gvr(resource string) meta.GroupVersionResource {
	return meta.GroupVersionResource{Version: "v1", Resource: resource}
}

// attrs describes a request on a core/v1 resource.
func attrs(op Operation, res, ns, name string, obj meta.Object) *Attributes {
	return &Attributes{Operation: op, Resource: gvr(res), Namespace: ns, Name: name, Object: obj}
}

// rl builds a resource list from name/quantity pairs.
func rl(kv ...string) core.ResourceList {
	out := core.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[core.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// container returns a container with the given requests and limits.
func container(name string, requests, limits core.ResourceList) core.Container {
	return core.Container{Name: name, Image: "img", Resources: core.ResourceRequirements{Requests: requests, Limits: limits}}
}

// pod returns a pod in ns with the given containers.
func pod(ns, name string, cs ...core.Container) *core.Pod {
	return &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: ns, Name: name}, Spec: core.PodSpec{Containers: cs}}
}

// requireStatus asserts that err carries a Status with code and message.
func requireStatus(t *testing.T, err error, code int32, msg string) *meta.Status {
	t.Helper()
	require.Error(t, err)
	st := apierrors.FromError(err)
	require.NotNil(t, st, "error %v carries no Status", err)
	require.Equal(t, code, st.Code, st.Message)
	require.Equal(t, msg, st.Message)
	return st
}

// assertRL asserts that two resource lists hold equal quantities.
func assertRL(t *testing.T, want, got core.ResourceList, msgAndArgs ...any) {
	t.Helper()
	w, g := map[core.ResourceName]string{}, map[core.ResourceName]string{}
	for n, q := range want {
		w[n] = q.Canonical()
	}
	for n, q := range got {
		g[n] = q.Canonical()
	}
	assert.Equal(t, w, g, msgAndArgs...)
}
