package rbac

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	tests := []struct {
		resource, kind string
		namespaced     bool
	}{
		{"roles", "Role", true},
		{"clusterroles", "ClusterRole", false},
		{"rolebindings", "RoleBinding", true},
		{"clusterrolebindings", "ClusterRoleBinding", false},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			typ, ok := s.ByResource(meta.GroupVersionResource{Group: GroupName, Version: Version, Resource: tt.resource})
			require.True(t, ok)
			assert.Equal(t, tt.kind, typ.Kind.Kind)
			assert.Equal(t, tt.namespaced, typ.Namespaced)
			assert.Empty(t, typ.ShortNames)
			assert.NotNil(t, typ.Validate)
			assert.NotNil(t, typ.ValidateUpdate)
		})
	}
	data, err := os.ReadFile(filepath.Join("testdata", "rolebinding.json"))
	require.NoError(t, err)
	obj, typ, err := s.Decode(data)
	require.NoError(t, err)
	typ.Default(obj)
	assert.Empty(t, typ.Validate(obj))
	assert.Empty(t, typ.ValidateUpdate(obj, obj))
}
