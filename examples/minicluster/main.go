// Command minicluster runs a whole orkit cluster in one process: the bbolt
// store and the API server today; the controllers, the scheduler and the
// node agents are wired in as they land (see the README).
//
//	go run ./examples/minicluster --data-dir /tmp/orkit
//	export KUBECONFIG=/tmp/orkit/admin.kubeconfig
//	kubectl get namespaces
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/orkit/orkit/internal/controlplane"
)

func main() {
	var (
		dataDir  = flag.String("data-dir", "", "directory for the cluster's state (store, certificates, kubeconfigs); required")
		listen   = flag.String("listen", "127.0.0.1:6443", "address of the API server")
		nodes    = flag.Int("nodes", 1, "real nodes to run (0 for none)")
		simNodes = flag.Int("sim-nodes", 0, "simulated nodes to run, named sim-node-<i>")
		demo     = flag.Bool("demo", false, "run the demo scenario and exit with its result")
	)
	flag.Parse()
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "minicluster: --data-dir is required")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dataDir, *listen, *nodes, *simNodes, *demo); err != nil {
		fmt.Fprintln(os.Stderr, "minicluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dataDir, listen string, nodes, simNodes int, demo bool) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	start := time.Now()
	step := func(what string) { fmt.Printf("[%6.2fs] %s\n", time.Since(start).Seconds(), what) }

	step("starting the store and the API server")
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dataDir, Listen: listen, Logger: log})
	if err != nil {
		return err
	}
	step("API server ready at " + cp.URL)
	if nodes > 0 || simNodes > 0 {
		step(fmt.Sprintf("nodes requested (%d real, %d simulated): the node agent is not wired in yet; running the control plane only", nodes, simNodes))
	}
	if demo {
		return fmt.Errorf("--demo needs the controllers, the scheduler and a node agent, which are not wired in yet")
	}
	fmt.Printf("\n  export KUBECONFIG=%s\n  kubectl get namespaces\n\nPress Ctrl-C to stop.\n", cp.AdminKubeconfig)
	<-ctx.Done()
	step("stopping")
	return nil
}
