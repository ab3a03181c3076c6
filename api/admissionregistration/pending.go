package admissionregistration

import (
	"slices"
	"strings"

	"github.com/orkit/orkit/api/meta"
)

// PendingInitializers returns the initializers a new object of gvr must
// wait for, as Kubernetes' Initializers admission plugin computed them: the
// configurations are merged in name order, an initializer name already seen
// is skipped, and an initializer is kept when any of its rules matches gvr.
// configs is not modified. The result is nil when none apply.
func PendingInitializers(configs []InitializerConfiguration, gvr meta.GroupVersionResource) []meta.Initializer {
	ordered := make([]*InitializerConfiguration, len(configs))
	for i := range configs {
		ordered[i] = &configs[i]
	}
	slices.SortStableFunc(ordered, func(a, b *InitializerConfiguration) int { return strings.Compare(a.Name, b.Name) })
	seen := map[string]bool{}
	var out []meta.Initializer
	for _, c := range ordered {
		for _, in := range c.Initializers {
			if seen[in.Name] {
				continue
			}
			seen[in.Name] = true
			if in.Matches(gvr.Group, gvr.Version, gvr.Resource) {
				out = append(out, meta.Initializer{Name: in.Name})
			}
		}
	}
	return out
}
