package bbolt_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/orkit/orkit/store/bbolt"
)

// lockedBuffer is a log sink for several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// boltTxid returns the transaction id of path's newest meta page.
func boltTxid(t *testing.T, path string) int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	var id int
	require.NoError(t, db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil }))
	return id
}

// TestDamagedMetaPageIsNotSilent damages one meta page at a time. When it
// is the newest one, bbolt falls back to the older page and the last
// acknowledged write is lost: Open must warn, naming the lost transaction
// and the revision the store went back to. When it is the older page,
// nothing is lost, and Open still says which page it repaired.
func TestDamagedMetaPageIsNotSilent(t *testing.T) {
	for _, newest := range []bool{true, false} {
		t.Run(fmt.Sprintf("newest=%v", newest), func(t *testing.T) {
			path := populated(t, 10)
			s, err := bbolt.Open(path, nil)
			require.NoError(t, err)
			last, err := s.Create(context.Background(), "/pop/last", []byte("acknowledged"))
			require.NoError(t, err)
			require.NoError(t, s.Close())
			txid := boltTxid(t, path)
			page := txid % 2 // bbolt writes transaction n's meta to page n%2
			if !newest {
				page = 1 - page
			}
			overwrite(t, path, int64(page)*4096, make([]byte, 4096))

			logs := &lockedBuffer{}
			s, err = bbolt.Open(path, &bbolt.Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close()) }()
			rev, err := s.Revision(context.Background())
			require.NoError(t, err)
			out := logs.String()
			t.Log(out)
			assert.Contains(t, out, "level=WARN")
			assert.Contains(t, out, fmt.Sprintf("meta page %d", page), "names the damaged page")
			if newest {
				assert.Equal(t, last-1, rev, "the last commit is gone")
				assert.Contains(t, out, fmt.Sprintf("lost_transaction=%d", txid), "names the lost transaction")
				assert.Contains(t, out, fmt.Sprintf("revision=%d", last-1), "names the revision the store went back to")
			} else {
				assert.Equal(t, last, rev, "the older page held nothing newer")
				assert.Contains(t, out, fmt.Sprintf("lost_transaction=%d", txid+1),
					"a transaction after the newest valid one may have been lost")
			}
		})
	}
}

// holderEnv makes the test binary, run as a child, hold a store open.
const holderEnv = "ORKIT_BBOLT_TEST_HOLD"

// TestMain lets the test binary play a second process holding the lock.
func TestMain(m *testing.M) {
	if path := os.Getenv(holderEnv); path != "" {
		s, err := bbolt.Open(path, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "holder:", err)
			os.Exit(1)
		}
		fmt.Println("holding")
		_, _ = os.Stdin.Read(make([]byte, 1)) // until the parent closes stdin
		_ = s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOpenRefusesFileHeldByAnotherProcess: another process holds the file;
// Open fails with ErrLocked after LockTimeout, naming the path and the
// process holding it.
func TestOpenRefusesFileHeldByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var stdout lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stdout.String(), "holding") {
		require.True(t, time.Now().Before(deadline), "holder did not start: %s", stdout.String())
		time.Sleep(10 * time.Millisecond)
	}

	_, err = bbolt.Open(path, &bbolt.Config{LockTimeout: 200 * time.Millisecond})
	require.ErrorIs(t, err, bbolt.ErrLocked)
	t.Log(err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid), "names the holder")
	assert.Contains(t, err.Error(), filepath.Base(os.Args[0]), "names the holder's command")

	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())
	s, err := bbolt.Open(path, nil)
	require.NoError(t, err, "free once the holder exits")
	require.NoError(t, s.Close())
}
