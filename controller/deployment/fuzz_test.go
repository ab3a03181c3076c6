package deployment

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
)

// FuzzRevision: any annotation value parses to a revision >= 0, and a
// revision written by the controller reads back.
func FuzzRevision(f *testing.F) {
	for _, s := range []string{"", "1", "42", "-3", "abc", "9223372036854775808", " 7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := &meta.ObjectMeta{Annotations: map[string]string{apps.RevisionAnnotation: s}}
		v := Revision(m)
		require.GreaterOrEqual(t, v, int64(0))
		if v == math.MaxInt64 {
			return // saturates: the controller does not add one
		}
		rs := &apps.ReplicaSet{ObjectMeta: *m}
		setNewRSAnnotations(&apps.Deployment{}, rs, v+1)
		require.Equal(t, v+1, Revision(&rs.ObjectMeta), "annotation %q", rs.Annotations[apps.RevisionAnnotation])
	})
}

// FuzzProportionalSizes: whatever the sizes and annotations, scaling up
// never shrinks a ReplicaSet, scaling down never grows one, sizes stay
// >= 0, and unless a size had to be clamped at zero they add up to
// replicas+maxSurge.
func FuzzProportionalSizes(f *testing.F) {
	f.Add(uint16(20), uint16(8), uint16(5), uint16(13), uint16(13))
	f.Add(uint16(0), uint16(8), uint16(5), uint16(13), uint16(13))
	f.Add(uint16(3), uint16(50), uint16(1), uint16(0), uint16(7))
	f.Fuzz(func(t *testing.T, replicas, a, b, annA, annB uint16) {
		d := dep(int32(replicas%2000), `"25%"`, `"25%"`)
		d.Status.Replicas = int32(a%2000) + int32(b%2000)
		x := rs("a", int32(a%2000), 0, 0, time.Hour)
		y := rs("b", int32(b%2000), 0, 0, 0)
		x.Annotations = map[string]string{apps.MaxReplicasAnnotation: strconv.Itoa(int(annA % 3000))}
		y.Annotations = map[string]string{apps.MaxReplicasAnnotation: strconv.Itoa(int(annB % 3000))}
		got := ProportionalSizes(d, []*apps.ReplicaSet{x, y})
		allowed := *d.Spec.Replicas
		if allowed > 0 {
			allowed += MaxSurge(d)
		}
		toAdd := allowed - rsReplicas(x) - rsReplicas(y)
		for i, r := range []*apps.ReplicaSet{x, y} {
			require.GreaterOrEqual(t, got[i], int32(0))
			if toAdd > 0 {
				require.GreaterOrEqual(t, got[i], rsReplicas(r))
			}
			if toAdd < 0 {
				require.LessOrEqual(t, got[i], rsReplicas(r))
			}
		}
		if got[0] > 0 && got[1] > 0 {
			require.Equal(t, allowed, got[0]+got[1])
		}
	})
}
