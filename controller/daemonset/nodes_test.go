package daemonset

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestNodePlacement(t *testing.T) {
	p := &nodePlacement{seen: map[string]placementKey{}}
	n := readyNode("n", map[string]string{"a": "1"})
	assert.True(t, p.changed(n), "a new node")
	assert.False(t, p.changed(n))
	hb := meta.DeepCopy(n)
	hb.Status.Conditions[0].LastHeartbeatTime = meta.Now()
	assert.False(t, p.changed(hb), "a heartbeat is not a placement change")
	at := meta.Now()
	tainted := meta.DeepCopy(n)
	tainted.Spec.Taints = []core.Taint{{Key: "k", Effect: core.TaintEffectNoSchedule, TimeAdded: &at}}
	assert.True(t, p.changed(tainted))
	later := meta.DeepCopy(tainted)
	later.Spec.Taints[0].TimeAdded = nil
	assert.False(t, p.changed(later), "timeAdded does not matter")
	relabelled := meta.DeepCopy(later)
	relabelled.Labels["a"] = "2"
	assert.True(t, p.changed(relabelled))
	p.forget("n")
	assert.True(t, p.changed(relabelled), "a forgotten node is new again")
}
