package helm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"

	"github.com/orkit/orkit/compat/internal/cluster"
	"github.com/orkit/orkit/compat/internal/nodeagent"
)

// helmVersion is the Helm release scripts/setup.sh builds.
const helmVersion = "v3.22.0"

// helmCLI runs the helm binary against one cluster, with its own
// configuration, cache and data directories (nothing of the machine's).
type helmCLI struct {
	t          *testing.T
	bin        string
	kubeconfig string
	env        []string
	dir        string
}

// requireHelm finds helm on PATH (scripts/setup.sh installs it) and checks
// that it is a Helm 3 client. Without it the test is skipped, or fails
// under CI=true.
func requireHelm(t *testing.T, kubeconfig string) *helmCLI {
	t.Helper()
	bin, err := exec.LookPath("helm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("helm is missing (CI=true, so this fails instead of skipping; scripts/setup.sh builds %s): %v", helmVersion, err)
		}
		t.Skipf("helm is missing (scripts/setup.sh builds %s)", helmVersion)
	}
	dir := t.TempDir()
	h := &helmCLI{t: t, bin: bin, kubeconfig: kubeconfig, dir: dir}
	h.env = append(os.Environ(), "HELM_CONFIG_HOME="+filepath.Join(dir, "config"), "HELM_CACHE_HOME="+filepath.Join(dir, "cache"),
		"HELM_DATA_HOME="+filepath.Join(dir, "data"), "KUBECONFIG="+kubeconfig, "HELM_KUBECONTEXT=")
	v := h.ok("version", "--template", "{{.Version}}")
	require.True(t, strings.HasPrefix(v, "v3."), "helm %s is not Helm 3: %s", bin, v)
	return h
}

// run runs helm and returns its stdout, stderr and error.
func (h *helmCLI) run(args ...string) (string, string, error) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = h.env, h.dir, &stdout, &stderr
	err := cmd.Run()
	return strings.TrimSpace(stdout.String()), stderr.String(), err
}

// ok runs helm and fails the test if it fails.
func (h *helmCLI) ok(args ...string) string {
	h.t.Helper()
	out, errOut, err := h.run(args...)
	require.NoError(h.t, err, "helm %s\nstdout: %s\nstderr: %s", strings.Join(args, " "), out, errOut)
	return out
}

// startCluster starts orkit with its scheduler and controllers and two
// simulated nodes (the client-go node agent) that run what is scheduled.
func startCluster(t *testing.T) (*cluster.Cluster, kubernetes.Interface) {
	c := cluster.Start(t, cluster.Options{Scheduler: true, Controllers: true, ServiceIPs: true})
	cs := kubernetes.NewForConfigOrDie(c.RESTConfig())
	ctx, cancel := context.WithCancel(context.Background())
	agent := nodeagent.New(cs, nodeagent.Config{LeaseInterval: time.Second})
	for _, n := range []string{"sim-0", "sim-1"} {
		require.NoError(t, agent.Register(ctx, n))
	}
	done := make(chan error, 1)
	go func() { done <- agent.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return c, cs
}

// release is the part of `helm status -o json` the test reads.
type release struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Info    struct {
		Status string `json:"status"`
	} `json:"info"`
	Config map[string]any `json:"config"`
}

func (h *helmCLI) status(name, namespace string) release {
	h.t.Helper()
	var r release
	require.NoError(h.t, json.Unmarshal([]byte(h.ok("status", name, "-n", namespace, "-o", "json")), &r))
	return r
}
