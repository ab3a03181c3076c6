package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/orkit/orkit/api"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/garbagecollector"
	"github.com/orkit/orkit/controlplane"
)

// options are the program's flags.
type options struct {
	DataDir string
	Listen  string
	Logger  *slog.Logger
}

func main() {
	opts := options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	flag.StringVar(&opts.DataDir, "data-dir", "", "directory for the control plane's state; required")
	flag.StringVar(&opts.Listen, "listen", "127.0.0.1:6443", "address of the API server")
	flag.Parse()
	if opts.DataDir == "" {
		fmt.Fprintln(os.Stderr, "custom-resource: --data-dir is required")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-resource:", err)
		os.Exit(1)
	}
}

// run starts everything, prints how to use it and waits for ctx to end.
func run(ctx context.Context, opts options, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := start(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, `Control plane on %s serving widgets.example.orkit.io (short name wd), with the widget
controller and the garbage collector.

  export KUBECONFIG=%s
  kubectl api-resources --api-group=example.orkit.io
  printf 'apiVersion: example.orkit.io/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n' | kubectl apply -f -
  kubectl get wd                       # NAME SIZE READY AGE
  kubectl get configmap w1-widget -o yaml
  kubectl delete widget w1             # the ConfigMap goes too

Press Ctrl-C to stop.
`, c.cp.URL, c.cp.AdminKubeconfig)
	select {
	case <-ctx.Done():
	case err := <-c.managerDone: // it stopped on its own: a failure
		return fmt.Errorf("controller manager stopped: %v", err)
	}
	cancel()
	return <-c.managerDone
}

// cluster is what start runs: the control plane serving Widget, and a
// controller manager with the widget controller and the garbage
// collector. Everything stops when start's ctx ends; managerDone then
// yields the manager's result.
type cluster struct {
	cp          *controlplane.ControlPlane
	client      *client.Client // admin, knows Widget
	manager     *controller.Manager
	managerDone chan error
}

// start starts the control plane with Widget registered and the
// controllers.
func start(ctx context.Context, opts options) (*cluster, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	// controlplane.Start serves the built-in kinds and the Resources of
	// its Config: Widget is served from the start, watch cache included.
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: opts.DataDir, Listen: opts.Listen, Logger: opts.Logger,
		Resources: []apiserver.Resource{WidgetResource()}})
	if err != nil {
		return nil, err
	}
	c := &cluster{cp: cp, managerDone: make(chan error, 1)}
	if c.client, err = widgetClient(cp, opts.DataDir); err != nil {
		return nil, err
	}
	if err := c.startControllers(ctx, opts.Logger); err != nil {
		return nil, err
	}
	return c, nil
}

// widgetClient returns a client whose scheme knows Widget besides the
// built-in kinds, so client.For[Widget] and informers work. It
// authenticates as widget-controller in system:masters; a production
// controller would get a ClusterRole for widgets and configmaps instead.
func widgetClient(cp *controlplane.ControlPlane, dir string) (*client.Client, error) {
	sch := api.NewScheme()
	if err := sch.Register(*WidgetType()); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "widget-controller.kubeconfig")
	if err := cp.WriteKubeconfig(path, "widget-controller", "system:masters"); err != nil {
		return nil, err
	}
	cfg, err := client.ConfigFromKubeconfig(path, "")
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.WithScheme(sch))
}

// startControllers runs a Manager with the widget controller and the
// garbage collector (which deletes a widget's ConfigMap with it).
func (c *cluster) startControllers(ctx context.Context, log *slog.Logger) error {
	m, err := controller.NewManager(controller.ManagerConfig{Client: c.client, Logger: log})
	if err != nil {
		return err
	}
	wc, err := NewWidgetController(m, log)
	if err != nil {
		return fmt.Errorf("widget controller: %w", err)
	}
	gc, err := garbagecollector.New(m, garbagecollector.Config{})
	if err != nil {
		return fmt.Errorf("garbage collector: %w", err)
	}
	if err := errors.Join(m.Add(wc), m.Add(gc)); err != nil {
		return err
	}
	c.manager = m
	go func() { c.managerDone <- m.Run(ctx) }()
	return nil
}
