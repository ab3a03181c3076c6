package clientgo_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// candidateEnv names the candidate's identity in a child process.
const candidateEnv = "COMPAT_LEADER_CANDIDATE"

// The Lease the candidates compete for, and its timing (short, so a
// crashed leader's Lease expires within the test).
const (
	leaseNS, leaseName = "default", "compat-leader"
	leaseDuration      = 2 * time.Second
)

// runCandidate is a leader-election candidate process (client-go's
// tools/leaderelection on a Lease): it prints "OBSERVED <leader>" when it
// sees a new leader, "LEADING <id>" when it leads and "STOPPED <id>" when
// it stops; SIGTERM makes it release the Lease and exit 0.
func runCandidate(id, kubeconfig string) int {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "candidate:", err)
		return 2
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: leaseName},
		Client: cs.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: id}}
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true, Name: leaseName,
		LeaseDuration: leaseDuration, RenewDeadline: leaseDuration * 3 / 4, RetryPeriod: 100 * time.Millisecond,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { fmt.Println("LEADING", id); <-ctx.Done() },
			OnStoppedLeading: func() { fmt.Println("STOPPED", id) },
			OnNewLeader:      func(leader string) { fmt.Println("OBSERVED", leader) },
		},
	})
	return 0
}

// candidate is a running candidate process and the lines it printed.
type candidate struct {
	id    string
	cmd   *exec.Cmd
	lines chan string
}

func startCandidate(t *testing.T, kubeconfig, id string) *candidate {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), candidateEnv+"="+id, "KUBECONFIG="+kubeconfig)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &candidate{id: id, cmd: cmd, lines: make(chan string, 100)}
	go func() {
		defer close(c.lines)
		for s := bufio.NewScanner(out); s.Scan(); {
			c.lines <- s.Text()
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return c
}

// await waits until the candidate prints line.
func (c *candidate) await(t *testing.T, line string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got, ok := <-c.lines:
			require.True(t, ok, "candidate %s exited before printing %q", c.id, line)
			if got == line {
				return
			}
			require.False(t, strings.HasPrefix(got, "LEADING"), "candidate %s: %q while waiting for %q", c.id, got, line)
		case <-timeout:
			t.Fatalf("candidate %s never printed %q", c.id, line)
		}
	}
}

// TestLeaderElectionHandover: client-go's leader election on a Lease
// hands over between processes: a second candidate waits while the first
// leads; the first releases on SIGTERM and the second leads at once; a
// leader killed without releasing is replaced once its Lease expires.
func TestLeaderElectionHandover(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	kc := c.Kubeconfig()
	holder := func() (string, int32) {
		l, err := cs.CoordinationV1().Leases(leaseNS).Get(context.Background(), leaseName, metav1.GetOptions{})
		require.NoError(t, err)
		var h string
		if l.Spec.HolderIdentity != nil {
			h = *l.Spec.HolderIdentity
		}
		var tr int32
		if l.Spec.LeaseTransitions != nil {
			tr = *l.Spec.LeaseTransitions
		}
		return h, tr
	}

	a := startCandidate(t, kc, "a")
	a.await(t, "LEADING a")
	b := startCandidate(t, kc, "b")
	b.await(t, "OBSERVED a") // b has read the Lease: a holds it
	h, trA := holder()
	assert.Equal(t, "a", h)

	// Graceful: a releases on SIGTERM, b takes over.
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGTERM))
	a.await(t, "STOPPED a")
	require.NoError(t, a.cmd.Wait())
	b.await(t, "LEADING b")
	h, trB := holder()
	assert.Equal(t, "b", h)
	assert.Equal(t, trA+1, trB, "one more transition")

	// Crash: b is killed holding the Lease; c leads once it expired.
	cc := startCandidate(t, kc, "c")
	cc.await(t, "OBSERVED b")
	require.NoError(t, b.cmd.Process.Kill())
	_ = b.cmd.Wait()
	cc.await(t, "LEADING c")
	h, trC := holder()
	assert.Equal(t, "c", h)
	assert.Equal(t, trB+1, trC)
	require.NoError(t, cc.cmd.Process.Signal(syscall.SIGTERM))
	cc.await(t, "STOPPED c")
	require.NoError(t, cc.cmd.Wait())
	h, _ = holder()
	assert.Empty(t, h, "c released the Lease on exit")
}
