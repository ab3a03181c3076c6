package rbac

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertGolden decodes the golden file into obj, re-encodes it and compares
// both as generic JSON. uncarried lists dotted paths of fields the golden
// file has and the type deliberately does not carry; they are removed from
// the expectation (and must exist in it, so the list stays honest).
func assertGolden(t *testing.T, file string, obj any, uncarried ...string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, obj))
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	var want, got any
	require.NoError(t, json.Unmarshal(data, &want))
	require.NoError(t, json.Unmarshal(out, &got))
	for _, p := range uncarried {
		require.True(t, deletePath(want, strings.Split(p, ".")), "uncarried field %s is not in %s", p, file)
	}
	assert.Equal(t, want, got)
}

func deletePath(v any, path []string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if len(path) == 1 {
		_, ok := m[path[0]]
		delete(m, path[0])
		return ok
	}
	return deletePath(m[path[0]], path[1:])
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file string
		obj  any
	}{
		{"role.json", &Role{}},
		{"clusterrole.json", &ClusterRole{}},
		{"clusterrole-nonresource.json", &ClusterRole{}},
		{"rolebinding.json", &RoleBinding{}},
		{"clusterrolebinding.json", &ClusterRoleBinding{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) { assertGolden(t, tt.file, tt.obj) })
	}
}

func TestGoldenValidates(t *testing.T) {
	var cr ClusterRole
	assertGolden(t, "clusterrole.json", &cr)
	assert.Empty(t, ValidateClusterRole(&cr))
	var rb RoleBinding
	assertGolden(t, "rolebinding.json", &rb)
	assert.Empty(t, ValidateRoleBinding(&rb))
	var crb ClusterRoleBinding
	assertGolden(t, "clusterrolebinding.json", &crb)
	assert.Empty(t, ValidateClusterRoleBinding(&crb))
	var nr ClusterRole
	assertGolden(t, "clusterrole-nonresource.json", &nr)
	assert.Empty(t, ValidateClusterRole(&nr))
	assert.True(t, RulesAllowNonResource(nr.Rules, "get", "/healthz"))
	assert.True(t, RulesAllow(cr.Rules, "bind", GroupName, "clusterroles", "", "view"))
	assert.False(t, RulesAllow(cr.Rules, "bind", GroupName, "clusterroles", "", "admin"))
}

func TestEmptyRulesEncodeAsNull(t *testing.T) {
	// Kubernetes' rules field has no omitempty: an aggregated role with no
	// rules yet prints "rules": null.
	out, err := json.Marshal(&ClusterRole{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{},"rules":null}`, string(out))
}
