package kubelet

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestStatusManagerConflictsAndMonotonicPhase(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	created, err := pods(tc.admin, "default").Create(ctx, simplePod("sm", "nowhere"))
	require.NoError(t, err)
	m := newStatusManager(tc.admin, quietLogger())

	// Writers of labels race the status writes: every status write must
	// land anyway (conflicts are retried).
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 30 {
			p, err := pods(tc.admin, "default").Get(ctx, "sm")
			if err != nil {
				continue
			}
			p.Labels = map[string]string{"i": fmt.Sprint(i)}
			_, _ = pods(tc.admin, "default").Update(ctx, p)
		}
	}()
	for i := range 30 {
		m.set(created, core.PodStatus{Phase: core.PodRunning, Message: fmt.Sprintf("m%d", i)})
		// A flush that keeps conflicting stays dirty; the next one retries.
		waitFor(t, 10*time.Second, "status written", func() bool { return m.flush(ctx, created.UID) == nil && !m.isDirty(created.UID) })
	}
	wg.Wait()
	got, err := pods(tc.admin, "default").Get(ctx, "sm")
	require.NoError(t, err)
	assert.Equal(t, "m29", got.Status.Message)

	// Unchanged statuses are not written again.
	before := m.writes
	m.set(created, core.PodStatus{Phase: core.PodRunning, Message: "m29"})
	require.NoError(t, m.flush(ctx, created.UID))
	assert.Equal(t, before, m.writes)

	// A terminal phase stays.
	m.set(created, core.PodStatus{Phase: core.PodSucceeded, Message: "done"})
	require.NoError(t, m.flush(ctx, created.UID))
	m.set(created, core.PodStatus{Phase: core.PodRunning, Message: "again"})
	require.NoError(t, m.flush(ctx, created.UID))
	got, err = pods(tc.admin, "default").Get(ctx, "sm")
	require.NoError(t, err)
	assert.Equal(t, core.PodSucceeded, got.Status.Phase)
	assert.Equal(t, "again", got.Status.Message)

	// A pod replaced under the same name is not written.
	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "sm", nil))
	_, err = pods(tc.admin, "default").Create(ctx, simplePod("sm", ""))
	require.NoError(t, err)
	m.set(created, core.PodStatus{Phase: core.PodFailed, Message: "stale"})
	err = m.flush(ctx, created.UID)
	require.Error(t, err)
	got, err = pods(tc.admin, "default").Get(ctx, "sm")
	require.NoError(t, err)
	assert.NotEqual(t, "stale", got.Status.Message)
}

func TestStatusEqualIgnoresTimes(t *testing.T) {
	a := core.PodStatus{Phase: core.PodRunning, Conditions: []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue, LastTransitionTime: meta.Now()}}}
	b := a
	b.Conditions = []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue}}
	assert.True(t, statusEqual(a, b))
	b.Conditions[0].Status = meta.ConditionFalse
	assert.False(t, statusEqual(a, b))
}

func TestCopyCRILogOversizedLine(t *testing.T) {
	line := "2026-01-02T03:04:05Z stdout F " + strings.Repeat("x", 2*maxLogLine) + "\n"
	path := writeLog(t, line, "2026-01-02T03:04:06Z stdout F after\n")
	var b strings.Builder
	require.NoError(t, copyCRILog(context.Background(), path, core.PodLogOptions{}, &b, func() bool { return false }))
	out := b.String()
	assert.Less(t, len(out), maxLogLine+16, "an oversized line is cut")
	assert.True(t, strings.HasSuffix(out, "after\n"), "the next line still comes")
}

// A status another writer changed after the kubelet's last write is
// written back once; the kubelet's own write, or another writer's change
// elsewhere, calls for no write.
func TestStatusManagerRewritesOthersWrites(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	created, err := pods(tc.admin, "default").Create(ctx, simplePod("ow", "nowhere"))
	require.NoError(t, err)
	m := newStatusManager(tc.admin, quietLogger())
	ready := core.PodStatus{Phase: core.PodRunning, Conditions: []core.PodCondition{{Type: core.PodReady, Status: meta.ConditionTrue}}}
	m.set(created, ready)
	require.NoError(t, m.flush(ctx, created.UID))
	get := func() *core.Pod {
		p, err := pods(tc.admin, "default").Get(ctx, "ow")
		require.NoError(t, err)
		return p
	}

	m.set(get(), ready)
	assert.False(t, m.isDirty(created.UID), "the pod as the kubelet wrote it")

	p := get()
	p.Labels = map[string]string{"a": "b"}
	_, err = pods(tc.admin, "default").Update(ctx, p)
	require.NoError(t, err)
	m.set(get(), ready)
	assert.False(t, m.isDirty(created.UID), "another writer changed the labels, not the status")

	p = get()
	p.Status.Conditions[0] = core.PodCondition{Type: core.PodReady, Status: meta.ConditionFalse, Reason: "NodeNotReady"}
	_, err = pods(tc.admin, "default").UpdateStatus(ctx, p)
	require.NoError(t, err)
	m.set(created, ready)
	assert.False(t, m.isDirty(created.UID), "a pod older than the kubelet's write shows nothing")
	m.set(get(), ready)
	assert.True(t, m.isDirty(created.UID), "another writer changed the status")
	require.NoError(t, m.flush(ctx, created.UID))
	assert.Equal(t, meta.ConditionTrue, get().Status.Conditions[0].Status)

	m.set(get(), ready)
	assert.False(t, m.isDirty(created.UID), "written back once")
}
