package deployment_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/internal/testnode"
)

const cmKubeconfigEnv = "ORKIT_TEST_CONTROLLER_MANAGER_KUBECONFIG"

// TestControllerManagerProcess is not a test: the benchmark runs the
// test binary again with this test selected and cmKubeconfigEnv set, so
// that the Deployment and ReplicaSet controllers run in a process of
// their own whose CPU time can be read. It runs until SIGTERM.
func TestControllerManagerProcess(t *testing.T) {
	kc := os.Getenv(cmKubeconfigEnv)
	if kc == "" {
		t.Skip("helper process for BenchmarkDeployment1000")
	}
	cfg, err := client.ConfigFromKubeconfig(kc, "")
	require.NoError(t, err)
	cfg.QPS = -1
	c, err := client.New(cfg, client.WithLogger(testnode.QuietLogger()))
	require.NoError(t, err)
	m, err := controller.NewManager(controller.ManagerConfig{Client: c, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	rc, err := replicaset.New(m, replicaset.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	dc, err := deployment.New(m, deployment.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(rc))
	require.NoError(t, m.Add(dc))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		for m.Ready() != nil && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Println("READY")
	}()
	require.NoError(t, m.Run(ctx))
}

// cpuTime returns the user+system CPU time of process pid so far.
func cpuTime(t testing.TB, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// BenchmarkDeployment1000 measures, against the in-process API server
// with 20 testnode nodes, the time from creating a Deployment of 1,000
// replicas to all 1,000 pods created (and to all available), and the
// CPU the controller process spends per 1,000 pod changes (every pod
// ADDED/MODIFIED/DELETED event a watch sees meanwhile: creations,
// bindings, status updates).
func BenchmarkDeployment1000(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("needs /proc")
	}
	for range b.N {
		runDeployment1000(b)
	}
}

func runDeployment1000(b *testing.B) {
	cl := testnode.StartCluster(b)
	c := cl.Client(b, cl.AdminKubeconfig)
	testnode.RunAgent(b, c, testnode.Config{Nodes: 20, Bind: true, Workers: 8})
	cmd := exec.Command(os.Args[0], "-test.run=^TestControllerManagerProcess$", "-test.v")
	cmd.Env = append(os.Environ(), cmKubeconfigEnv+"="+cl.ControllerKubeconfig)
	out, err := cmd.StdoutPipe()
	require.NoError(b, err)
	require.NoError(b, cmd.Start())
	b.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.Contains(sc.Text(), "READY") {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := client.For[core.Pod](c, "default").Watch(ctx, client.ListOptions{})
	require.NoError(b, err)
	var created, changes int
	ready := map[string]bool{}
	cpu0 := cpuTime(b, cmd.Process.Pid)
	b.ResetTimer()
	start := time.Now()
	_, err = client.For[apps.Deployment](c, "default").Create(ctx, newDeployment("big", 1000, "orkit.local/hello:v1"))
	require.NoError(b, err)
	var tCreated time.Duration
	deadline := time.After(5 * time.Minute)
	for tCreated == 0 || len(ready) < 1000 {
		select {
		case ev, ok := <-events:
			require.True(b, ok, "watch ended")
			changes++
			switch {
			case ev.Type == "ADDED":
				created++
				if created == 1000 {
					tCreated = time.Since(start)
				}
			case ev.Type == "MODIFIED" && core.IsPodReady(ev.Object):
				ready[ev.Object.Name] = true
			}
		case <-deadline:
			b.Fatalf("timed out: %d created, %d ready", created, len(ready))
		}
	}
	tAvailable := time.Since(start)
	b.StopTimer()
	cpu := cpuTime(b, cmd.Process.Pid) - cpu0
	b.ReportMetric(tCreated.Seconds(), "s-to-1000-created")
	b.ReportMetric(tAvailable.Seconds(), "s-to-1000-ready")
	b.ReportMetric(float64(cpu.Milliseconds())*1000/float64(changes), "controller-cpu-ms/1000-pod-changes")
	b.ReportMetric(float64(changes), "pod-changes")
}
