package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutsideTheModule copies this program into a module of its own, as
// an embedder's program would live (go.mod requiring orkit, replaced by
// this checkout), builds it there with the go command, offline from the
// module cache, and runs it: a control plane, a scheduler with a custom
// predicate, the controllers and simulated nodes from public packages
// only (the go command refuses internal packages of another module)
// schedule the pods.
func TestOutsideTheModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	mod := t.TempDir()
	writeModule(t, root, mod)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(mod, "embed")
	build := exec.CommandContext(ctx, goBin, "build", "-o", bin, ".")
	build.Dir = mod
	// Offline: every module comes from the module cache this checkout
	// built with, and go.sum from the checkout's.
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build outside the module:\n%s", out)

	run := exec.CommandContext(ctx, bin, "--data-dir", filepath.Join(mod, "data"))
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	err = run.Run()
	require.NoError(t, err, "run:\nstdout:\n%s\nstderr:\n%s", &stdout, &stderr)
	assert.Equal(t, 2, strings.Count(stdout.String(), "scheduled to green-0: Running"), stdout.String())
	assert.Contains(t, stdout.String(), `pod red unschedulable: 0/2 nodes are available: 2 node(s) not in pool "red"`)
	assert.NotContains(t, stderr.String(), "level=ERROR", "a passing run logs no error")
}

// writeModule writes example.com/embedder into dir: a go.mod requiring
// orkit with a replace to root, the checkout's go.sum, and this
// program's non-test Go files.
func writeModule(t *testing.T, root, dir string) {
	t.Helper()
	goVersion := ""
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(gomod), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			goVersion = strings.TrimSpace(v)
		}
	}
	require.NotEmpty(t, goVersion, "go directive of %s/go.mod", root)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/embedder\n\ngo "+goVersion+
		"\n\nrequire github.com/orkit/orkit v0.0.0-00010101000000-000000000000\n\nreplace github.com/orkit/orkit => "+root+"\n"), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), src, 0o644))
		n++
	}
	require.Positive(t, n, "the program's files")
}
