package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// testCompactorTurns runs two store.Compactors on one store, as two API
// servers sharing it would: each round exactly one compacts, to the
// revision seen one round earlier; when one stops, the other takes over
// within two rounds; history below the compacted revision is gone.
func testCompactorTurns(t *testing.T, open Opener) {
	s := open(t)
	ctx := testContext(t)
	var compactedA, compactedB []int64
	var beforeA []int64
	var beforeErr error
	a := store.NewCompactor(s, store.CompactorConfig{
		OnCompact: func(r int64) { compactedA = append(compactedA, r) },
		BeforeCompact: func(r int64) {
			beforeA = append(beforeA, r)
			_, beforeErr = s.List(ctx, "/ct/", store.ListOptions{Revision: r - 1})
		},
	})
	b := store.NewCompactor(s, store.CompactorConfig{OnCompact: func(r int64) { compactedB = append(compactedB, r) }})
	write := func(round int) int64 {
		var rev int64
		for i := range 5 {
			var err error
			rev, err = s.Create(ctx, fmt.Sprintf("/ct/%d-%d", round, i), []byte("v"))
			require.NoError(t, err)
		}
		return rev
	}

	write(0) // so that the revision below the first compaction is a real one

	// Round 1: A takes the first turn and only records the revision; B
	// finds the key taken and learns it.
	require.NoError(t, a.Step(ctx))
	seenA := revision(t, s)
	require.NoError(t, b.Step(ctx))
	assert.Empty(t, compactedA, "the first round compacts nothing")
	assert.Empty(t, compactedB)
	first := write(1)

	// Round 2: A compacts to what it saw in round 1; B, a step behind the
	// key, does not compact again.
	require.NoError(t, a.Step(ctx))
	seenA2 := revision(t, s)
	require.NoError(t, b.Step(ctx))
	require.Equal(t, []int64{seenA}, compactedA)
	assert.Equal(t, compactedA, beforeA, "BeforeCompact runs for each compaction, with its revision")
	assert.NoError(t, beforeErr, "BeforeCompact runs while the history below the revision is still there")
	assert.Empty(t, compactedB, "one compaction per round")
	_, err := s.List(ctx, "/ct/", store.ListOptions{Revision: seenA - 1})
	assert.ErrorIs(t, err, store.ErrTooOld, "history below the compacted revision is gone")
	res, err := s.List(ctx, "/ct/", store.ListOptions{Revision: first})
	require.NoError(t, err, "the last round's history is kept")
	assert.Len(t, res.KVs, 10)
	write(2)

	// A stops. B's next round wins the key (it learned its ModRevision)
	// and compacts to the revision it saw when it lost.
	require.NoError(t, b.Step(ctx))
	require.Len(t, compactedB, 1, "B takes over once A stops")
	assert.GreaterOrEqual(t, compactedB[0], seenA2)
	assert.Equal(t, compactedB[0], b.Compacted())
	_, err = s.Watch(ctx, "/ct/", compactedB[0]-1)
	assert.ErrorIs(t, err, store.ErrTooOld)
	kv, err := s.Get(ctx, store.CompactKey)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprint(compactedB[0]), string(kv.Value), "the key holds the revision compacted to")
}
