package bbolt_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
	"github.com/orkit/orkit/store/bbolt"
	"github.com/orkit/orkit/store/storetest"
)

// openTemp opens a new store in a temporary directory, closed at cleanup.
func openTemp(t testing.TB, opts *bbolt.Config) *bbolt.Store {
	t.Helper()
	s, err := bbolt.Open(filepath.Join(t.TempDir(), "store.db"), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Interface { return openTemp(t, nil) })
}

func TestConformanceSmallBuffers(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Interface {
		return openTemp(t, &bbolt.Config{WatchBuffer: 300, MaxBatchOps: 7})
	})
}

func TestDurability(t *testing.T) {
	storetest.RunDurable(t, func(t *testing.T, dir string) (store.Interface, error) {
		return bbolt.Open(filepath.Join(dir, "store.db"), &bbolt.Config{LockTimeout: 10 * time.Second})
	})
}
