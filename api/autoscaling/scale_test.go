package autoscaling

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
)

// As `kubectl get --raw /apis/apps/v1/namespaces/default/deployments/web/scale` prints it.
const scaleDoc = `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","namespace":"default","uid":"9b8e6c1e-3f5e-4c1a-8a53-0e0b0f7d2b11","resourceVersion":"1234","creationTimestamp":"2024-05-01T10:00:00Z"},"spec":{"replicas":3},"status":{"replicas":3,"selector":"app=web"}}`

func TestScaleJSON(t *testing.T) {
	var s Scale
	require.NoError(t, json.Unmarshal([]byte(scaleDoc), &s))
	assert.Equal(t, int32(3), s.Spec.Replicas)
	assert.Equal(t, "app=web", s.Status.Selector)
	out, err := json.Marshal(&s)
	require.NoError(t, err)
	assert.JSONEq(t, scaleDoc, string(out))

	// A zero scale keeps status.replicas, as Kubernetes does.
	out, err = json.Marshal(&Scale{TypeMeta: meta.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{},"spec":{},"status":{"replicas":0}}`, string(out))
	assert.Equal(t, "autoscaling/v1, Kind=Scale", Kind().String())
}

func TestValidateScale(t *testing.T) {
	tests := []struct {
		name  string
		scale Scale
		want  []string
	}{
		{"ok", Scale{ObjectMeta: meta.ObjectMeta{Name: "web"}, Spec: ScaleSpec{Replicas: 0}}, nil},
		{"negative", Scale{ObjectMeta: meta.ObjectMeta{Name: "web"}, Spec: ScaleSpec{Replicas: -1}},
			[]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"no name", Scale{}, []string{"metadata.name: Required value: name or generateName is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateScale(&tt.scale) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
