package core

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/scheme"
)

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	tests := []struct {
		resource   string
		kind       string
		namespaced bool
		short      []string
		categories []string
		sub        []string
	}{
		{"pods", "Pod", true, []string{"po"}, []string{"all"}, []string{"status", "binding", "log", "exec", "attach", "portforward", "eviction", "ephemeralcontainers", "resize"}},
		{"nodes", "Node", false, []string{"no"}, nil, []string{"status"}},
		{"namespaces", "Namespace", false, []string{"ns"}, nil, []string{"status", "finalize"}},
		{"secrets", "Secret", true, nil, nil, nil},
		{"configmaps", "ConfigMap", true, []string{"cm"}, nil, nil},
		{"services", "Service", true, []string{"svc"}, []string{"all"}, []string{"status"}},
		{"endpoints", "Endpoints", true, []string{"ep"}, nil, nil},
		{"bindings", "Binding", true, nil, nil, nil},
		{"events", "Event", true, []string{"ev"}, nil, nil},
		{"resourcequotas", "ResourceQuota", true, []string{"quota"}, nil, []string{"status"}},
		{"limitranges", "LimitRange", true, []string{"limits"}, nil, nil},
		{"persistentvolumes", "PersistentVolume", false, []string{"pv"}, nil, []string{"status"}},
		{"persistentvolumeclaims", "PersistentVolumeClaim", true, []string{"pvc"}, nil, []string{"status"}},
		{"serviceaccounts", "ServiceAccount", true, []string{"sa"}, nil, []string{"token"}},
		{"replicationcontrollers", "ReplicationController", true, []string{"rc"}, []string{"all"}, []string{"status", "scale"}},
		{"podtemplates", "PodTemplate", true, nil, nil, nil},
	}
	require.Len(t, s.Types(), len(tests))
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			typ, ok := s.ByResource(GroupVersion().WithResource(tt.resource))
			require.True(t, ok)
			assert.Equal(t, tt.kind, typ.Kind.Kind)
			assert.Equal(t, tt.namespaced, typ.Namespaced)
			assert.Equal(t, tt.short, typ.ShortNames)
			assert.Equal(t, tt.categories, typ.Categories)
			assert.Equal(t, tt.sub, typ.Subresources)
			obj := typ.New()
			list := typ.NewList()
			assert.NotNil(t, obj.GetObjectMeta())
			assert.NotNil(t, list.GetListMeta())
		})
	}
	assert.Panics(t, func() { Register(s) }, "registering twice is a wiring bug")
}

// TestGoldenValidate decodes every golden object through the scheme,
// defaults it and checks that it validates: real objects must be valid.
func TestGoldenValidate(t *testing.T) {
	s := scheme.New()
	Register(s)
	for _, tc := range goldenCases {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			obj, typ, err := s.Decode(raw)
			require.NoError(t, err)
			if typ.Default != nil {
				typ.Default(obj)
			}
			assert.Empty(t, typ.Validate(obj))
			if typ.ValidateUpdate != nil {
				old, _, err := s.Decode(raw)
				require.NoError(t, err)
				if typ.Default != nil {
					typ.Default(old)
				}
				assert.Empty(t, typ.ValidateUpdate(obj, old), "an unchanged object is a valid update")
			}
		})
	}
}

func TestSchemeHooksRejectWrongType(t *testing.T) {
	s := scheme.New()
	Register(s)
	typ, ok := s.ByKind(GroupVersion().WithKind("Pod"))
	require.True(t, ok)
	errs := typ.Validate(&Node{})
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs.ToAggregate(), errs[0])
	assert.Contains(t, errs[0].Error(), "want *core.Pod, got *core.Node")
	typ.Default(&Node{}) // ignored, no panic
	assert.Len(t, typ.ValidateUpdate(&Pod{}, &Node{}), 1)
}
