package clientgo_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/consistencydetector"

	"github.com/orkit/orkit/compat/internal/cluster"
)

const writers = 16

// watchListUsed says client-go's reflectors stream their lists
// (WatchListClient, on by default since client-go 0.35).
func watchListUsed() bool {
	return clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
}

// isInformed and isWatchList tell the reflectors' requests for configmaps
// and pods apart.
func isInformed(r cluster.Request) bool {
	return strings.HasSuffix(r.Path, "/configmaps") || strings.HasSuffix(r.Path, "/pods")
}

func isWatchList(r cluster.Request) bool {
	return isInformed(r) && r.IsWatch() && r.Query.Get("sendInitialEvents") == "true"
}

// isList is a reflector's list; isExactList is the list client-go's
// consistency detector compares a watch-list with.
func isList(r cluster.Request) bool {
	return isInformed(r) && r.Method == "GET" && !r.IsWatch() && !isExactList(r)
}

func isExactList(r cluster.Request) bool {
	return isInformed(r) && !r.IsWatch() && r.Query.Get("resourceVersionMatch") == "Exact"
}

// TestSharedInformersConverge: client-go shared informers for configmaps
// and pods, with the process's feature gates (the defaults unless
// KUBE_FEATURE_WatchListClient says otherwise), sync against orkit and
// end up holding exactly the server's objects after 16 writers' creates,
// updates and deletes. With WatchList, client-go's own consistency
// detector compares each streamed list with a list at its
// resourceVersion (it panics on a difference).
func TestSharedInformersConverge(t *testing.T) {
	restore := consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(true)
	defer restore()
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ensureNamespaces(t, cs)
	ws := newWriters(cs, writers, 6)
	var ops atomic.Int64
	ctx := context.Background()
	require.NoError(t, runWriters(ctx, ws, 10, &ops), "writes before the informers start")

	var log cluster.RequestLog
	cfg := c.RESTConfig()
	cfg.WrapTransport = log.Wrap
	informed := startInformers(t, cfg, cs)
	require.NoError(t, runWriters(ctx, ws, 60, &ops))
	requireConverged(t, informed)

	t.Logf("WatchListClient=%v; %d writes; watch-lists %d, lists %d, consistency checks %d", watchListUsed(), ops.Load(),
		log.Count(isWatchList), log.Count(isList), log.Count(isExactList))
	if watchListUsed() {
		assert.GreaterOrEqual(t, log.Count(isWatchList), 2, "each reflector streams its list")
		assert.Zero(t, log.Count(isList), "no reflector fell back to a list")
		assert.GreaterOrEqual(t, log.Count(isExactList), 2, "client-go checked each streamed list")
	} else {
		assert.Zero(t, log.Count(isWatchList))
		assert.GreaterOrEqual(t, log.Count(isList), 2)
	}
}

// TestSharedInformersConvergeWithoutWatchList runs
// TestSharedInformersConverge and TestNodeAndDeploymentInformersConverge
// in a child process with
// KUBE_FEATURE_WatchListClient=false: client-go reads its feature gates
// from the environment once per process, so the gate cannot change here.
func TestSharedInformersConvergeWithoutWatchList(t *testing.T) {
	if !watchListUsed() {
		t.Skip("WatchListClient is already off in this process: TestSharedInformersConverge covers it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^(TestSharedInformersConverge|TestNodeAndDeploymentInformersConverge)$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "KUBE_FEATURE_WatchListClient=false")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "WatchListClient=false")
	assert.Contains(t, string(out), "--- PASS: TestSharedInformersConverge")
	assert.Contains(t, string(out), "--- PASS: TestNodeAndDeploymentInformersConverge")
}

// TestSharedInformersAcrossGoneAndRestart: informers stay exact while
// they are cut off the server long enough to fall out of its watch
// history (their resumes get 410 Gone and they list again) as the store is
// compacted, and across a restart of the API server on the same data.
func TestSharedInformersAcrossGoneAndRestart(t *testing.T) {
	c := cluster.Start(t, cluster.Options{WatchHistory: 20})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ensureNamespaces(t, cs)
	var (
		log  cluster.RequestLog
		dial cluster.CutDialer
		ops  atomic.Int64
	)
	cfg := c.RESTConfig()
	cfg.WrapTransport, cfg.Dial = log.Wrap, dial.DialContext
	informed := startInformers(t, cfg, cs)
	ws := newWriters(cs, writers, 6)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	werr := make(chan error, 1)
	go func() { werr <- runWriters(ctx, ws, 1<<30, &ops) }() // until cancel
	gone := func(r cluster.Request) bool { return isInformed(r) && r.Code == 410 }
	for round := 0; round < 2; round++ {
		waitEvents(t, informed, 100) // the informers follow the writers on their watches
		dial.Block(true)
		dial.CutAll()
		waitOps(t, &ops, ops.Load()+60) // past the 20-event history
		rev, err := c.Store().Revision(ctx)
		require.NoError(t, err)
		require.NoError(t, c.Store().Compact(ctx, rev))
		dial.Block(false)
	}
	waitOps(t, &ops, ops.Load()+200)
	cancel()
	require.NoError(t, <-werr)
	requireConverged(t, informed)
	for _, res := range []string{"/configmaps", "/pods"} {
		assert.Positive(t, log.Count(func(r cluster.Request) bool { return gone(r) && strings.HasSuffix(r.Path, res) }),
			"the %s informer's resumes must have hit 410 Gone", res)
	}
	t.Logf("WatchListClient=%v; %d writes; 410s %d, watch-lists %d, lists %d", watchListUsed(), ops.Load(),
		log.Count(gone), log.Count(isWatchList), log.Count(isList))

	watchesBefore := log.Count(func(r cluster.Request) bool { return isInformed(r) && r.IsWatch() && r.Code == 200 })
	restarted := time.Now()
	t.Cleanup(func() { // what the informers asked after the restart, when it went wrong
		if t.Failed() {
			logInformedSince(t, &log, restarted)
		}
	})
	require.NoError(t, c.Restart())
	require.NoError(t, runWriters(context.Background(), ws, 40, &ops))
	requireConverged(t, informed)
	if took := time.Since(restarted); took > 20*time.Second {
		t.Logf("the informers took %v to converge after the restart", took)
		logInformedSince(t, &log, restarted)
	}
	watchesAfter := log.Count(func(r cluster.Request) bool { return isInformed(r) && r.IsWatch() && r.Code == 200 })
	assert.Greater(t, watchesAfter, watchesBefore, "the informers watch the restarted server")
}

// logInformedSince logs the informers' requests sent since t.
func logInformedSince(t *testing.T, log *cluster.RequestLog, since time.Time) {
	for _, r := range log.Since(since) {
		if isInformed(r) {
			t.Logf("%s %s %s?%s -> %d %s", r.Time.Format("15:04:05.000"), r.Method, r.Path, r.Query.Encode(), r.Code, r.Err)
		}
	}
}

// waitOps waits until the writers have done n operations.
func waitOps(t *testing.T, ops *atomic.Int64, n int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for ops.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("writers stalled at %d operations, waiting for %d", ops.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
