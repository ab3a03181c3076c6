package admissionregistration

import (
	"slices"

	"github.com/orkit/orkit/api/meta"
)

// GroupName is the API group of InitializerConfiguration.
const GroupName = "admissionregistration.k8s.io"

// Version is the API version of InitializerConfiguration.
const Version = "v1alpha1"

// InitializerConfiguration names the initializers that must act on new
// objects of the resources their rules match.
type InitializerConfiguration struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	// Initializers, in the order they are added to a new object's pending
	// list. Names must be unique across all configurations.
	Initializers []Initializer `json:"initializers,omitempty"`
}

// InitializerConfigurationList is a list of InitializerConfigurations.
type InitializerConfigurationList = meta.List[InitializerConfiguration]

// Initializer is one named initializer and the resources it acts on.
type Initializer struct {
	// Name is fully qualified, at least three dot-separated DNS segments
	// ("podimage.example.com").
	Name string `json:"name"`
	// Rules select the resources; the initializer applies when any rule
	// matches. Empty means none.
	Rules []Rule `json:"rules,omitempty"`
}

// Rule matches resources by API group, version and resource name; "*" in a
// list matches anything. Initializer rules allow no subresources and ignore
// Scope; webhook and policy rules (v1) may name subresources ("pods/status",
// "pods/*", "*/scale") and limit the scope (default "*").
type Rule struct {
	APIGroups   []string   `json:"apiGroups,omitempty"`
	APIVersions []string   `json:"apiVersions,omitempty"`
	Resources   []string   `json:"resources,omitempty"`
	Scope       *ScopeType `json:"scope,omitempty"`
}

// Matches reports whether r selects resource in group and version.
func (r Rule) Matches(group, version, resource string) bool {
	return matchList(r.APIGroups, group) && matchList(r.APIVersions, version) && matchList(r.Resources, resource)
}

// Matches reports whether any rule of in selects the resource.
func (in Initializer) Matches(group, version, resource string) bool {
	for _, r := range in.Rules {
		if r.Matches(group, version, resource) {
			return true
		}
	}
	return false
}

func matchList(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}
