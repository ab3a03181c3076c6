package testnode

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controlplane"
)

// Cluster is an in-process control plane for one test, with kubeconfigs
// for the admin and for the controller manager. It stops when the test
// ends.
type Cluster struct {
	CP *controlplane.ControlPlane
	// AdminKubeconfig is a system:masters kubeconfig (for kubectl).
	AdminKubeconfig string
	// ControllerKubeconfig authenticates as system:kube-controller-manager.
	ControllerKubeconfig string
}

// StartCluster starts a control plane on a free loopback port in a
// temporary directory. It skips the test under -short.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	dir := t.TempDir()
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir, Listen: addr, Logger: QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "controller-manager.kubeconfig")
	if err := cp.WriteKubeconfig(kc, "system:kube-controller-manager"); err != nil {
		t.Fatal(err)
	}
	return &Cluster{CP: cp, AdminKubeconfig: cp.AdminKubeconfig, ControllerKubeconfig: kc}
}

// Client returns a new client from kubeconfig with client-side rate
// limiting off (tests measure the controllers, not the limiter).
func (c *Cluster) Client(t testing.TB, kubeconfig string) *client.Client {
	t.Helper()
	cfg, err := client.ConfigFromKubeconfig(kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS = -1
	cl, err := client.New(cfg, client.WithLogger(QuietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.CloseIdleConnections)
	return cl
}

// QuietLogger discards everything.
func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// RunAgent starts an agent with opts on c until the test ends and waits
// until it is ready.
func RunAgent(t testing.TB, c *client.Client, opts Config) *Agent {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = QuietLogger()
	}
	a, err := New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-a.Ready():
	case err := <-done:
		done <- err // for the cleanup
		t.Fatalf("testnode agent stopped: %v", err)
	}
	return a
}

// Eventually polls cond every 10 ms until it holds, failing the test
// after d.
func Eventually(t testing.TB, d time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v: %s", d, fmt.Sprintf(msg, args...))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// RunManager runs m until the test ends and waits until its caches have
// synced.
func RunManager(t testing.TB, m *controller.Manager) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	Eventually(t, time.Minute, func() bool { return m.Ready() == nil }, "manager caches synced")
}
