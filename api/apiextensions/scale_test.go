package apiextensions

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apiextensions/schema"
)

func TestScale(t *testing.T) {
	sel := ".status.labelSelector"
	sc := &CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &sel}
	obj := func(s string) map[string]any {
		v, err := schema.DecodeJSON([]byte(s))
		require.NoError(t, err)
		return v.(map[string]any)
	}
	o := obj(`{"spec":{"replicas":3},"status":{"replicas":2,"labelSelector":"app=web"}}`)
	assert.Empty(t, ValidateScale(o, sc))
	assert.Equal(t, Scale{SpecReplicas: 3, StatusReplicas: 2, Selector: "app=web"}, ScaleOf(o, sc))
	require.NoError(t, SetSpecReplicas(o, sc, 5))
	assert.Equal(t, int32(5), ScaleOf(o, sc).SpecReplicas)

	empty := obj(`{}`)
	assert.Equal(t, Scale{}, ScaleOf(empty, sc))
	require.NoError(t, SetSpecReplicas(empty, sc, 1))
	assert.Equal(t, obj(`{"spec":{"replicas":1}}`), empty)
	assert.Error(t, SetSpecReplicas(obj(`{"spec":"x"}`), sc, 1))

	var got []string
	for _, e := range ValidateScale(obj(`{"spec":{"replicas":-1},"status":{"replicas":4294967296,"labelSelector":5}}`), sc) {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		`.spec.replicas: Invalid value: -1: should be a non-negative integer`,
		`.status.replicas: Invalid value: 4294967296: should be less than or equal to 2147483647`,
		`.status.labelSelector: Invalid value: "": .status.labelSelector accessor error: 5 is of the type int64, expected string`,
	}, got)
}
