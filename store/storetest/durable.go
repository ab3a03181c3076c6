package storetest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store"
)

// DirOpener opens the store kept in dir, creating it when dir holds none.
// The suite closes every store it opens. It may be called in a child
// process (the crash test), so it must not depend on state set up by the
// parent test other than dir.
type DirOpener func(t *testing.T, dir string) (store.Interface, error)

// crashEnv names the directory a crash-test child writes to; its presence
// makes the Crash subtest act as the child.
const crashEnv = "ORKIT_STORETEST_CRASH_DIR"

// RunDurable runs the durability cases for a backend whose data lives in a
// directory: Reopen (revision, history, compaction and values survive
// Close/Open) and Crash (a child process writing with 16 goroutines is
// SIGKILLed; every write it acknowledged must be there after reopening,
// with revisions 1..N and no gap). The crash test re-executes the test
// binary, so RunDurable must be called from a test function directly or
// through t.Run subtests.
func RunDurable(t *testing.T, open DirOpener) {
	t.Run("Reopen", func(t *testing.T) { testReopen(t, open) })
	t.Run("Crash", func(t *testing.T) {
		if dir := os.Getenv(crashEnv); dir != "" {
			crashChild(t, open, dir)
			return
		}
		testCrash(t, open)
	})
}

func testReopen(t *testing.T, open DirOpener) {
	ctx := testContext(t)
	dir := t.TempDir()
	s, err := open(t, dir)
	require.NoError(t, err)
	m := newModel(revision(t, s))
	rng := rand.New(rand.NewPCG(13, 14))
	randomWrites(ctx, t, s, m, rng, "/d/", 8, 80)
	compactAt := m.base + 30
	require.NoError(t, s.Compact(ctx, compactAt))
	require.NoError(t, s.Close())

	s, err = open(t, dir)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	require.Equal(t, m.last(), revision(t, s))
	for rev := compactAt; rev <= m.last(); rev += 7 {
		got, _, err := listAll(ctx, s, "/d/", rev, 5)
		require.NoError(t, err)
		want := m.sorted(rev, "/d/")
		require.Len(t, got, len(want), "list at %d", rev)
		for i := range want {
			assertKV(t, want[i], got[i])
		}
	}
	_, err = s.List(ctx, "/d/", store.ListOptions{Revision: compactAt - 1})
	assert.ErrorIs(t, err, store.ErrTooOld, "compaction survives reopen")
	ch, err := s.Watch(ctx, "/d/", compactAt)
	require.NoError(t, err)
	got := collect(t, ch, upTo(m.last()))
	for i, ev := range got {
		assertEvent(t, m.events[compactAt+1+int64(i)], ev)
	}
	rev, err := s.Create(ctx, "/d/after-reopen", nil)
	require.NoError(t, err)
	assert.Equal(t, m.last()+1, rev)
}

// crashChild writes in a loop with 16 goroutines, printing "ACK key rev"
// for each acknowledged write, until it is killed (or a minute passes).
func crashChild(t *testing.T, open DirOpener, dir string) {
	s, err := open(t, dir)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	ack := func(k string, rev int64) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, "ACK %s %d\n", k, rev) // one write(2) per line
	}
	rev, err := s.Create(ctx, "/crash/start", []byte("/crash/start"))
	require.NoError(t, err)
	ack("/crash/start", rev)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				k := fmt.Sprintf("/crash/g%02d/%08d", g, i)
				rev, err := s.Create(ctx, k, []byte(k))
				if err != nil {
					fmt.Fprintf(os.Stderr, "create %s: %v\n", k, err)
					return
				}
				ack(k, rev)
			}
		})
	}
	wg.Wait()
	t.Error("crash child was not killed")
}

// testCrash runs crashChild in a child process, SIGKILLs it after about a
// second of acknowledged writes, reopens the store and checks it.
func testCrash(t *testing.T, open DirOpener) {
	dir := t.TempDir()
	acked, stderr := runCrashChild(t, dir)
	require.NotEmpty(t, acked, "child acknowledged nothing; stderr:\n%s", stderr)
	t.Logf("child acknowledged %d writes before SIGKILL", len(acked))

	ctx := testContext(t)
	s, err := open(t, dir)
	require.NoError(t, err, "reopen after SIGKILL")
	defer func() { require.NoError(t, s.Close()) }()
	cur := revision(t, s)
	for k, rev := range acked {
		kv, err := s.Get(ctx, k)
		require.NoError(t, err, "acknowledged write %s@%d lost", k, rev)
		require.Equal(t, rev, kv.ModRevision, "key %s", k)
		require.Equal(t, k, string(kv.Value))
		require.LessOrEqual(t, rev, cur)
	}
	// Only creates of distinct keys: the history is revisions 1..cur, one
	// key each, with no gap.
	kvs, _, err := listAll(ctx, s, "/crash/", 0, 1000)
	require.NoError(t, err)
	require.Len(t, kvs, int(cur))
	revs := make([]int64, 0, len(kvs))
	for _, kv := range kvs {
		revs = append(revs, kv.ModRevision)
	}
	slices.Sort(revs)
	for i, r := range revs {
		require.Equal(t, int64(i+1), r, "revisions have a gap")
	}
	ch, err := s.Watch(ctx, "/crash/", 1)
	require.NoError(t, err)
	evs := collect(t, ch, func(evs []store.Event) bool { return int64(len(evs)) >= cur-1 })
	for i, ev := range evs {
		require.Equal(t, int64(i+2), ev.Revision, "history replays strictly increasing, gap-free")
	}
	rev, err := s.Create(ctx, "/crash/after", nil)
	require.NoError(t, err)
	require.Equal(t, cur+1, rev)
}

// runCrashChild starts the child, lets it write for about a second after
// its first acknowledgement, SIGKILLs it and returns the acknowledged
// writes (key → revision) and its stderr.
func runCrashChild(t *testing.T, dir string) (map[string]int64, string) {
	var parts []string
	for _, p := range strings.Split(t.Name(), "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	acked := map[string]int64{}
	first := make(chan struct{})
	ended := make(chan struct{})
	var readErr error
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(out)
		once := sync.OnceFunc(func() { close(first) })
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 3 || f[0] != "ACK" {
				continue
			}
			if rev, err := strconv.ParseInt(f[2], 10, 64); err == nil {
				acked[f[1]] = rev
				once()
			}
		}
		readErr = sc.Err()
	}()
	select {
	case <-first:
		select { // the run length, not synchronisation
		case <-time.After(time.Second):
		case <-ended:
		}
	case <-ended:
	case <-time.After(waitTimeout):
	}
	_ = cmd.Process.Kill() // SIGKILL
	<-ended
	_ = cmd.Wait()
	require.NoError(t, readErr)
	return acked, stderr.String()
}
