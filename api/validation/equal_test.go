package validation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/resource"
)

func TestSemanticEqual(t *testing.T) {
	type spec struct {
		Limits   map[string]resource.Quantity
		Requests []resource.Quantity
		Started  *meta.Time
		Labels   map[string]string
		Any      any
		private  int
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"nil nil", nil, nil, true},
		{"nil vs value", nil, 1, false},
		{"ints", 1, 1, true},
		{"different types", int32(1), int64(1), false},
		{"quantities by value", resource.MustParse("1"), resource.MustParse("1000m"), true},
		{"quantities differ", resource.MustParse("1"), resource.MustParse("1001m"), false},
		{"time instants", meta.NewTime(now), meta.NewTime(now.In(time.FixedZone("x", 7200))), true},
		{"micro time", meta.MicroTime{Time: now}, meta.MicroTime{Time: now.Add(time.Microsecond)}, false},
		{"nested", spec{Limits: map[string]resource.Quantity{"cpu": resource.MustParse("0.5")}, Requests: []resource.Quantity{*resource.NewQuantity(1024, resource.BinarySI)}},
			spec{Limits: map[string]resource.Quantity{"cpu": resource.MustParse("500m")}, Requests: []resource.Quantity{resource.MustParse("1Ki")}}, true},
		{"nil and empty", spec{Labels: nil, Requests: nil}, spec{Labels: map[string]string{}, Requests: []resource.Quantity{}}, true},
		{"map differs", spec{Labels: map[string]string{"a": "b"}}, spec{Labels: map[string]string{"a": "c"}}, false},
		{"map key differs", spec{Labels: map[string]string{"a": "b"}}, spec{Labels: map[string]string{"b": "b"}}, false},
		{"pointer nil vs set", spec{}, spec{Started: &meta.Time{Time: now}}, false},
		{"interface", spec{Any: "x"}, spec{Any: "x"}, true},
		{"interface types", spec{Any: "1"}, spec{Any: 1}, false},
		{"unexported field", spec{private: 1}, spec{private: 2}, false},
		{"slices of len", []int{1}, []int{1, 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SemanticEqual(tt.a, tt.b))
			assert.Equal(t, tt.want, SemanticEqual(tt.b, tt.a))
		})
	}
}
