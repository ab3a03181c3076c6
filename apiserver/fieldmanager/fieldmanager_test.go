package fieldmanager_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver/fieldmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUpdateRecordsChangedFields(t *testing.T) {
	fm := newManager(t, reflect.TypeFor[core.ConfigMap](), "v1")
	empty := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`)
	created := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}, data: {x: "1", z: "2"}}`)
	entries, err := fm.Update(empty, created, "kubectl-create")
	require.NoError(t, err)
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, "kubectl-create", e.Manager)
	assert.Equal(t, "Update", e.Operation)
	assert.Equal(t, "v1", e.APIVersion)
	assert.Equal(t, "FieldsV1", e.FieldsType)
	require.NotNil(t, e.Time)
	assert.JSONEq(t, `{"f:data":{".":{},"f:x":{},"f:z":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}}`, string(e.FieldsV1))

	// A second manager changes y: y moves to it, x stays.
	live := withManaged(t, created, entries)
	next := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}, data: {x: "1", z: "3"}}`)
	entries, err = fm.Update(live, next, "editor")
	require.NoError(t, err)
	got := fieldsOf(entries)
	assert.JSONEq(t, `{"f:data":{"f:z":{}}}`, got["editor/Update"])
	assert.JSONEq(t, `{"f:data":{".":{},"f:x":{}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}}`, got["kubectl-create/Update"])
}

func TestApplyListMapKeys(t *testing.T) {
	fm := newManager(t, reflect.TypeFor[apps.Deployment](), "apps/v1", "status")
	empty := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ns}}`)
	cfg := obj(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}]
`)
	res, err := fm.Apply(empty, cfg, "alice", false, true)
	require.NoError(t, err)
	fields := fieldsOf(res.ManagedFields)["alice/Apply"]
	assert.Contains(t, fields, `"k:{\"name\":\"web\"}"`)
	assert.Contains(t, fields, `"k:{\"containerPort\":80,\"protocol\":\"TCP\"}"`)
	assert.Contains(t, fields, `"k:{\"name\":\"A\"}"`)
	assert.Contains(t, fields, `"f:selector":{}`, "a label selector is atomic")

	// Bob applies a second container and the replicas: the replicas conflict.
	live := withManaged(t, res.Object, res.ManagedFields)
	bob := obj(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  replicas: 3
  template:
    spec:
      containers:
      - {name: sidecar, image: busybox}
`)
	_, err = fm.Apply(live, bob, "bob", false, false)
	var ce *fieldmanager.ConflictError
	require.True(t, errors.As(err, &ce), "got %v", err)
	assert.ErrorIs(t, err, fieldmanager.ErrConflict)
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "alice": .spec.replicas`, err.Error())
	assert.Equal(t, []fieldmanager.Cause{{Message: `conflict with "alice"`, Field: ".spec.replicas"}}, ce.Causes())

	// Forced, bob takes replicas; both containers are kept.
	res, err = fm.Apply(live, bob, "bob", true, false)
	require.NoError(t, err)
	spec := res.Object["spec"].(map[string]any)
	assert.EqualValues(t, 3, spec["replicas"])
	containers := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	assert.Len(t, containers, 2)
	assert.NotContains(t, fieldsOf(res.ManagedFields)["alice/Apply"], "f:replicas")

	// Alice stops applying her env var: it is removed.
	live = withManaged(t, res.Object, res.ManagedFields)
	alice2 := obj(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx, ports: [{containerPort: 80}]}
`)
	res, err = fm.Apply(live, alice2, "alice", false, false)
	require.NoError(t, err)
	containers = res.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	for _, c := range containers {
		c := c.(map[string]any)
		if c["name"] == "web" {
			assert.NotContains(t, c, "env")
		}
	}
}

func TestUpdateCapsManagersAndKeepsTimesOfNoOps(t *testing.T) {
	fm := newManager(t, reflect.TypeFor[core.ConfigMap](), "v1")
	live := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`)
	for i := 0; i < 12; i++ {
		next := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`)
		data := map[string]any{}
		if d, ok := live["data"].(map[string]any); ok {
			for k, v := range d {
				data[k] = v
			}
		}
		data[fmt.Sprintf("k%02d", i)] = "v"
		next["data"] = data
		entries, err := fm.Update(live, next, fmt.Sprintf("m%02d", i))
		require.NoError(t, err)
		live = withManaged(t, next, entries)
	}
	entries, err := fieldmanager.DecodeManagedFields(mustEntries(t, live))
	require.NoError(t, err)
	assert.Len(t, entries.Fields, 10, "ten Update managers at most")
	got := fieldsOf(mustEntries(t, live))
	assert.Contains(t, got, "ancient-changes/Update")
	assert.Contains(t, got["ancient-changes/Update"], `"f:k00"`)

	// An update that changes nothing keeps every entry as it was.
	before := mustEntries(t, live)
	after, err := fm.Update(live, live, "someone")
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

func mustEntries(t *testing.T, o map[string]any) []meta.ManagedFieldsEntry {
	t.Helper()
	b, err := json.Marshal(o["metadata"].(map[string]any)["managedFields"])
	require.NoError(t, err)
	var out []meta.ManagedFieldsEntry
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}
