package controlplane

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store/bbolt"
)

// syncBuffer is a log sink for several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDamagedStoreIsReported: a data directory whose store lost its newest
// bbolt meta page starts (bbolt falls back to the older page), but not
// silently: the control plane's Logger gets the store's warning naming the
// lost transaction.
func TestDamagedStoreIsReported(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cp, err := Start(ctx, Config{DataDir: dir, Listen: freeAddr(t)})
	require.NoError(t, err)
	cancel()
	waitDone(t, cp)

	path := filepath.Join(dir, "store.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	var txid int
	require.NoError(t, db.View(func(tx *bolt.Tx) error { txid = tx.ID(); return nil }))
	require.NoError(t, db.Close())
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(make([]byte, 4096), int64(txid%2)*4096) // the newest meta page
	require.NoError(t, err)
	require.NoError(t, f.Close())

	logs := &syncBuffer{}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	cp2, err := Start(ctx2, Config{DataDir: dir, Listen: freeAddr(t), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err)
	defer func() { cancel2(); waitDone(t, cp2) }()
	assert.Contains(t, logs.String(), "lost_transaction=")
	assert.Contains(t, logs.String(), "level=WARN")
}

// TestDataDirInUse: a second control plane on a data directory in use is
// refused once the store's lock wait ends, with an error naming the file
// and who holds it.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, err := Start(ctx, Config{DataDir: dir, Listen: freeAddr(t)})
	require.NoError(t, err)
	defer func() { cancel(); waitDone(t, cp) }()

	_, err = Start(context.Background(), Config{DataDir: dir, Listen: freeAddr(t),
		Store: BboltStore(&bbolt.Config{LockTimeout: 100 * time.Millisecond})})
	require.ErrorIs(t, err, bbolt.ErrLocked)
	assert.Contains(t, err.Error(), filepath.Join(dir, "store.db"))
	assert.Contains(t, err.Error(), "held by pid")
}
