package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/admissionregistration"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
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
		fmt.Fprintln(os.Stderr, "admission-plugin: --data-dir is required")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "admission-plugin:", err)
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
	fmt.Fprintf(out, `Control plane on %s with the admission plugins RequireTeam and AdmittedBy
and the initializer %s.

  export KUBECONFIG=%s
  kubectl run web --image=orkit.local/hello:v1                     # refused: no team label
  kubectl run web --image=orkit.local/hello:v1 --labels=team=web   # created, annotated %s
  kubectl run proxy --image=orkit.local/hello:v1 --labels=team=web --port=80
  kubectl get pod proxy -o jsonpath='{.spec.containers[*].name}'  # proxy proxy-sidecar

Press Ctrl-C to stop.
`, c.cp.URL, SidecarInitializer, c.cp.AdminKubeconfig, AdmittedByAnnotation)
	select {
	case <-ctx.Done():
	case err := <-c.runnerDone: // it stopped on its own: a failure
		return fmt.Errorf("initializer runner stopped: %v", err)
	}
	cancel()
	return <-c.runnerDone
}

// cluster is what start runs: the control plane with the plugins in its
// admission chain, and the initializer's Runner. Everything stops when
// start's ctx ends; runnerDone then yields the Runner's result.
type cluster struct {
	cp         *controlplane.ControlPlane
	admin      *client.Client
	runnerDone chan error
}

// withPlugins returns the admission chain of srv: the built-in one with
// AdmittedBy after the built-in mutators and RequireTeam before the
// built-in validators (it looks only at the object, so it refuses before
// ResourceQuota charges anything).
func withPlugins(_ context.Context, srv *apiserver.Server) (*admission.Chain, error) {
	chain := controlplane.DefaultAdmission(srv)
	chain.Mutators = append(chain.Mutators, NewAdmittedBy())
	chain.Validators = append([]admission.Validator{NewRequireTeam()}, chain.Validators...)
	return chain, nil
}

// start starts the control plane, the initializer's Runner, and then
// registers the initializer for pods.
func start(ctx context.Context, opts options) (*cluster, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: opts.DataDir, Listen: opts.Listen,
		Logger: opts.Logger, Admission: withPlugins})
	if err != nil {
		return nil, err
	}
	c := &cluster{cp: cp, runnerDone: make(chan error, 1)}
	cfg, err := client.ConfigFromKubeconfig(cp.AdminKubeconfig, "")
	if err != nil {
		return nil, err
	}
	if c.admin, err = client.New(cfg); err != nil {
		return nil, err
	}
	// The Runner reads and writes pods through the API server in-process;
	// a Runner in another process would use a client instead.
	runner, err := admission.NewRunner(cp.Server.AdmissionSources(), []meta.GroupVersionResource{podsGVR},
		[]admission.Initializer{NewSidecar()}, admission.WithLogger(opts.Logger))
	if err != nil {
		return nil, err
	}
	go func() { c.runnerDone <- runner.Run(ctx) }()
	if err := registerInitializer(ctx, c.admin); err != nil {
		return nil, err
	}
	return c, nil
}

// registerInitializer creates (or, on a restart, replaces) the
// InitializerConfiguration that puts the sidecar initializer on every
// new pod's pending list.
func registerInitializer(ctx context.Context, c *client.Client) error {
	configs := client.For[admissionregistration.InitializerConfiguration](c, "")
	want := &admissionregistration.InitializerConfiguration{
		ObjectMeta: meta.ObjectMeta{Name: "sidecar-injection"},
		Initializers: []admissionregistration.Initializer{{Name: SidecarInitializer,
			Rules: []admissionregistration.Rule{{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}},
	}
	_, err := configs.Create(ctx, want)
	if apierrors.IsAlreadyExists(err) {
		cur, gerr := configs.Get(ctx, want.Name)
		if gerr != nil {
			return fmt.Errorf("read InitializerConfiguration %s: %w", want.Name, gerr)
		}
		want.ResourceVersion = cur.ResourceVersion
		_, err = configs.Update(ctx, want)
	}
	if err != nil {
		return fmt.Errorf("register initializer %s: %w", SidecarInitializer, err)
	}
	return nil
}
