package admissionregistration

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
)

func TestPendingInitializers(t *testing.T) {
	pods := Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}
	all := Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}
	deploys := Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}
	configs := []InitializerConfiguration{
		{ObjectMeta: meta.ObjectMeta{Name: "z"}, Initializers: []Initializer{
			{Name: "audit.example.com", Rules: []Rule{all}},
			{Name: "podimage.example.com", Rules: []Rule{deploys}}, // shadowed by the one in "a"
		}},
		{ObjectMeta: meta.ObjectMeta{Name: "a"}, Initializers: []Initializer{
			{Name: "podimage.example.com", Rules: []Rule{pods}},
			{Name: "norules.example.com"},
		}},
	}
	tests := []struct {
		gvr  meta.GroupVersionResource
		want []meta.Initializer
	}{
		{meta.GroupVersionResource{Version: "v1", Resource: "pods"},
			[]meta.Initializer{{Name: "podimage.example.com"}, {Name: "audit.example.com"}}},
		{meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			[]meta.Initializer{{Name: "audit.example.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.gvr.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, PendingInitializers(configs, tt.gvr))
		})
	}
	assert.Equal(t, "z", configs[0].Name, "input order unchanged")
	assert.Nil(t, PendingInitializers(nil, meta.GroupVersionResource{Version: "v1", Resource: "pods"}))
}

func ExamplePendingInitializers() {
	configs := []InitializerConfiguration{{
		ObjectMeta: meta.ObjectMeta{Name: "example-config"},
		Initializers: []Initializer{{Name: "podimage.example.com",
			Rules: []Rule{{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}},
	}}
	fmt.Println(PendingInitializers(configs, meta.GroupVersionResource{Version: "v1", Resource: "pods"}))
	// Output: [{podimage.example.com}]
}
