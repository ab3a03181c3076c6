package apiextensions

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

var goldenFiles = []string{"crontab.json", "widget.json", "stored.json"}

func decodeFile(t *testing.T, file string) (*CustomResourceDefinition, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	crd := &CustomResourceDefinition{}
	require.NoError(t, dec.Decode(crd))
	return crd, data
}

// TestGolden decodes real CRD manifests (every field refused that the
// object model does not know), encodes them again and expects the same
// document.
func TestGolden(t *testing.T) {
	for _, file := range goldenFiles {
		t.Run(file, func(t *testing.T) {
			crd, data := decodeFile(t, file)
			out, err := json.Marshal(crd)
			require.NoError(t, err)
			var want, got map[string]any
			require.NoError(t, json.Unmarshal(data, &want))
			require.NoError(t, json.Unmarshal(out, &got))
			if _, ok := want["status"]; !ok {
				// an unset status encodes as the empty status, as in Kubernetes.
				assert.Equal(t, map[string]any{"acceptedNames": map[string]any{"kind": "", "plural": ""}, "storedVersions": nil}, got["status"])
				delete(got, "status")
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestGoldenValidates checks that the manifests validate once defaulted,
// as kube-apiserver accepts them.
func TestGoldenValidates(t *testing.T) {
	for _, file := range goldenFiles {
		t.Run(file, func(t *testing.T) {
			crd, _ := decodeFile(t, file)
			SetDefaults(crd)
			assert.Empty(t, ValidateCustomResourceDefinition(crd))
			next := meta.DeepCopy(crd)
			assert.Empty(t, ValidateCustomResourceDefinitionUpdate(next, crd))
		})
	}
}

func TestDefaults(t *testing.T) {
	crd, _ := decodeFile(t, "widget.json")
	crd.Spec.Names.Singular, crd.Spec.Names.ListKind, crd.Spec.Conversion = "", "", nil
	SetDefaults(crd)
	assert.Equal(t, "widget", crd.Spec.Names.Singular)
	assert.Equal(t, "WidgetList", crd.Spec.Names.ListKind)
	assert.Equal(t, &CustomResourceConversion{Strategy: NoneConverter}, crd.Spec.Conversion)
	assert.Equal(t, []string{"v1alpha1"}, crd.Status.StoredVersions)
}

func TestPrepare(t *testing.T) {
	crd, _ := decodeFile(t, "stored.json")
	fresh := meta.DeepCopy(crd)
	PrepareForCreate(fresh)
	assert.Empty(t, fresh.Status.Conditions)
	assert.Equal(t, []string{"v1"}, fresh.Status.StoredVersions)
	assert.Equal(t, int64(1), fresh.Generation)

	next := meta.DeepCopy(crd)
	next.Status = CustomResourceDefinitionStatus{}
	next.Spec.Versions = append(next.Spec.Versions, CustomResourceDefinitionVersion{Name: "v2", Served: true, Storage: true})
	next.Spec.Versions[0].Storage = false
	PrepareForUpdate(next, crd, true)
	assert.Equal(t, []string{"v1", "v2"}, next.Status.StoredVersions)
	assert.Equal(t, int64(2), next.Generation)
	assert.Len(t, next.Status.Conditions, 2)
}

func TestConditions(t *testing.T) {
	crd, _ := decodeFile(t, "stored.json")
	assert.True(t, crd.IsConditionTrue(Established))
	before := crd.Condition(Established).LastTransitionTime
	crd.SetCondition(CustomResourceDefinitionCondition{Type: Established, Status: meta.ConditionTrue, Reason: "Again"})
	assert.Equal(t, before, crd.Condition(Established).LastTransitionTime, "same status keeps the transition time")
	crd.SetCondition(CustomResourceDefinitionCondition{Type: Terminating, Status: meta.ConditionTrue})
	assert.True(t, crd.IsConditionTrue(Terminating))
	crd.RemoveCondition(Terminating)
	assert.Nil(t, crd.Condition(Terminating))
	assert.Equal(t, "v1", crd.StorageVersion())
	assert.True(t, crd.HasServedVersion("v1"))
	assert.False(t, crd.HasServedVersion("v2"))
}
