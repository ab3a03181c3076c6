package core

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/resource"
)

func TestResourceListEqual(t *testing.T) {
	q := resource.MustParse
	cases := []struct {
		name string
		a, b ResourceList
		want bool
	}{
		{"nil and empty", nil, ResourceList{}, true},
		{"same value, other form", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceCPU: q("1000m")}, true},
		{"other value", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceCPU: q("2")}, false},
		{"other name", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceMemory: q("1")}, false},
		{"one more", ResourceList{ResourceCPU: q("1")}, ResourceList{ResourceCPU: q("1"), ResourceMemory: q("1Gi")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.a.Equal(tc.b))
			assert.Equal(t, tc.want, tc.b.Equal(tc.a))
		})
	}
}
