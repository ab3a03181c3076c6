package protobuf

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSchemaConsistent checks the tables: every referenced message exists,
// field numbers fit the presence mask, names are set and unique per JSON
// object (inlined members included), and every kind has a root message.
func TestSchemaConsistent(t *testing.T) {
	reg := defaultRegistry()
	for name, m := range reg.messages {
		if m.special != spNone {
			assert.Empty(t, m.fields, name)
			continue
		}
		assert.Len(t, m.order, len(m.fields), name)
		seen := map[string]bool{}
		collectNames(t, reg, name, seen)
		for num, f := range m.fields {
			assert.Less(t, num, uint32(64), "%s field %d: presence is a uint64 mask", name, num)
			assert.NotZero(t, num, name)
			if f.kind == kMessage || f.kind == kMapMessage {
				sub, ok := reg.messages[f.msg]
				if assert.True(t, ok, "%s field %d references missing %q", name, num, f.msg) && f.inline {
					assert.Equal(t, spNone, sub.special, "%s field %d inlines a special type", name, num)
				}
			} else {
				assert.Empty(t, f.msg, "%s field %d", name, num)
			}
			assert.Equal(t, f.inline, f.name == "", "%s field %d: only inlined fields have no name", name, num)
			if f.nullIfAbsent {
				assert.True(t, f.repeated, "%s field %d: only repeated fields are null when absent", name, num)
			}
		}
	}
	for gvk, root := range reg.kinds {
		_, ok := reg.messages[root]
		assert.True(t, ok, "%s has no message %q", gvk, root)
	}
}

// collectNames records the JSON member names of message typ, following
// inlined messages, and fails on a duplicate.
func collectNames(t *testing.T, reg *registry, typ string, seen map[string]bool) {
	for num, f := range reg.messages[typ].fields {
		if f.inline {
			collectNames(t, reg, f.msg, seen)
			continue
		}
		assert.False(t, seen[f.name], "%s field %d: duplicate JSON name %q", typ, num, f.name)
		seen[f.name] = true
	}
}

func TestKinds(t *testing.T) {
	kinds := Kinds()
	want := []string{
		"v1, Kind=Namespace", "v1, Kind=Pod", "apps/v1, Kind=Deployment", "meta.k8s.io/v1, Kind=DeleteOptions",
		"authorization.k8s.io/v1, Kind=SelfSubjectAccessReview", "autoscaling/v1, Kind=Scale",
		"coordination.k8s.io/v1, Kind=Lease", "scheduling.k8s.io/v1, Kind=PriorityClass",
		"rbac.authorization.k8s.io/v1, Kind=ClusterRoleBinding", "authentication.k8s.io/v1, Kind=TokenReview",
		"discovery.k8s.io/v1, Kind=EndpointSlice",
	}
	var got []string
	for _, k := range kinds {
		got = append(got, k.String())
	}
	for _, w := range want {
		assert.Contains(t, got, w)
	}
	assert.IsNonDecreasing(t, got)
}
