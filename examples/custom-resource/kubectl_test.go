package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// kubectl runs the real kubectl against a kubeconfig, with its own
// discovery cache.
type kubectl struct {
	t          *testing.T
	path       string
	kubeconfig string
	cacheDir   string
}

// requireKubectl finds kubectl; without it the test is skipped, or fails
// when CI=true.
func requireKubectl(t *testing.T, kubeconfig string) *kubectl {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skipf("kubectl is missing: %v", err)
	}
	return &kubectl{t: t, path: path, kubeconfig: kubeconfig, cacheDir: t.TempDir()}
}

// run runs kubectl with args and stdin, and returns stdout, stderr and
// the error.
func (k *kubectl) run(stdin string, args ...string) (string, string, error) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args = append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir}, args...)
	cmd := exec.CommandContext(ctx, k.path, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// ok runs kubectl and fails the test unless it succeeds.
func (k *kubectl) ok(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	require.NoError(k.t, err, "kubectl %v: %s", args, errOut)
	return out
}

// getJSON reads one object with kubectl get -o json into v.
func (k *kubectl) getJSON(v any, args ...string) error {
	k.t.Helper()
	out, errOut, err := k.run("", append([]string{"get", "-o", "json"}, args...)...)
	if err != nil {
		return &kubectlError{errOut}
	}
	return json.Unmarshal([]byte(out), v)
}

type kubectlError struct{ stderr string }

func (e *kubectlError) Error() string { return e.stderr }

// eventually polls cond every 50 ms until it holds, failing after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func widgetYAML(name, size string) string {
	return "apiVersion: example.orkit.io/v1\nkind: Widget\nmetadata:\n  name: " + name + "\nspec:\n  size: " + size + "\n"
}

// TestWithKubectl drives the program with the real kubectl: widgets are
// discovered with their short name; kubectl apply creates one; the
// controller makes its ConfigMap and marks it ready; kubectl get shows
// SIZE and READY; a changed size reaches the ConfigMap; an invalid size
// is refused; a ConfigMap in the way is left alone and reported;
// deleting the widget deletes the ConfigMap.
func TestWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, err := start(ctx, options{DataDir: t.TempDir(), Listen: freeAddr(t), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-c.managerDone)
	})
	k := requireKubectl(t, c.cp.AdminKubeconfig)

	out := k.ok("", "api-resources", "--api-group=example.orkit.io", "--no-headers")
	assert.Equal(t, []string{"widgets", "wd", "example.orkit.io/v1", "true", "Widget"}, strings.Fields(out))

	assert.Equal(t, "widget.example.orkit.io/w1 created\n", k.ok(widgetYAML("w1", "3"), "apply", "-f", "-"))
	var w Widget
	eventually(t, 30*time.Second, "widget w1 ready", func() bool {
		return k.getJSON(&w, "widget", "w1") == nil && w.Status.Ready
	})
	assert.Equal(t, WidgetStatus{Ready: true, ConfigMap: "w1-widget", ObservedGeneration: 1}, w.Status)

	var cm core.ConfigMap
	require.NoError(t, k.getJSON(&cm, "configmap", "w1-widget"))
	assert.Equal(t, map[string]string{"size": "3"}, cm.Data)
	ref := meta.ControllerOf(&cm.ObjectMeta)
	require.NotNil(t, ref, "ConfigMap has a controller reference")
	assert.Equal(t, w.UID, ref.UID)
	assert.Equal(t, "Widget", ref.Kind)

	for _, res := range []string{"widgets", "wd", "widget.example.orkit.io"} {
		lines := strings.Split(strings.TrimSpace(k.ok("", "get", res)), "\n")
		require.Len(t, lines, 2, "kubectl get %s", res)
		assert.Equal(t, []string{"NAME", "SIZE", "READY", "AGE"}, strings.Fields(lines[0]))
		assert.Equal(t, []string{"w1", "3", "true"}, strings.Fields(lines[1])[:3])
	}

	assert.Equal(t, "widget.example.orkit.io/w1 configured\n", k.ok(widgetYAML("w1", "7"), "apply", "-f", "-"))
	eventually(t, 30*time.Second, "ConfigMap size 7", func() bool {
		return k.getJSON(&cm, "configmap", "w1-widget") == nil && cm.Data["size"] == "7"
	})
	eventually(t, 30*time.Second, "status of generation 2", func() bool {
		return k.getJSON(&w, "wd", "w1") == nil && w.Status.ObservedGeneration == 2 && w.Status.Ready
	})

	_, errOut, err := k.run(widgetYAML("w2", "300"), "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `The Widget "w2" is invalid`)
	assert.Contains(t, errOut, "must be between 1 and 100, inclusive")
	_, _, err = k.run("", "get", "wd", "w2")
	assert.Error(t, err, "the invalid widget was not stored")

	_, errOut, err = k.run(widgetYAML("w2", `"big"`), "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, "size", "a malformed size is refused, naming the field")
	_, errOut, err = k.run(widgetYAML("w2", "3")+"  colour: red\n", "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `strict decoding error: unknown field`)
	assert.Contains(t, errOut, "colour")
	_, _, err = k.run("", "get", "wd", "w2")
	assert.Error(t, err, "the malformed widgets were not stored")

	k.ok("", "create", "configmap", "w3-widget", "--from-literal=size=1")
	k.ok(widgetYAML("w3", "2"), "apply", "-f", "-")
	eventually(t, 30*time.Second, "widget w3 reported not ready", func() bool {
		return k.getJSON(&w, "wd", "w3") == nil && w.Status.ObservedGeneration == 1
	})
	assert.False(t, w.Status.Ready)
	assert.Equal(t, `ConfigMap "w3-widget" exists and is not controlled by this widget`, w.Status.Message)
	require.NoError(t, k.getJSON(&cm, "configmap", "w3-widget"))
	assert.Equal(t, map[string]string{"size": "1"}, cm.Data, "someone else's ConfigMap is left alone")

	k.ok("", "delete", "widget", "w1")
	eventually(t, 30*time.Second, "ConfigMap w1-widget deleted by the garbage collector", func() bool {
		err := k.getJSON(&cm, "configmap", "w1-widget")
		return err != nil && strings.Contains(err.Error(), "NotFound")
	})
}
