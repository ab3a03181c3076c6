package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store/bbolt"
)

// TestDataDirInUse: a second minicluster on a data directory in use is
// refused with an error naming the store file and its holder; --defragment
// is refused too while the cluster runs, and works once it stopped.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Out: &syncBuffer{}})
	require.NoError(t, err)
	_, err = startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Out: &syncBuffer{}})
	require.ErrorIs(t, err, bbolt.ErrLocked)
	assert.Contains(t, err.Error(), dir+"/store.db")
	assert.Contains(t, err.Error(), "held by pid")
	err = defragment(dir, &bytes.Buffer{})
	require.ErrorIs(t, err, bbolt.ErrLocked)
	c.Close()
	var out bytes.Buffer
	require.NoError(t, defragment(dir, &out))
	assert.Contains(t, out.String(), "defragmented")
}
