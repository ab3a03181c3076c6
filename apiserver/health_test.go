package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store/bbolt"
)

func (ts *testServer) anonGet(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := ts.anon.Get(ts.url + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestHealthChecksVerbose checks /livez, /readyz and /healthz as
// kube-apiserver serves them: "ok", each check listed with ?verbose,
// ?exclude, one check by its path, and a failing check (the store
// closed) turning the answer into a 500 that lists it with its reason
// withheld.
func TestHealthChecksVerbose(t *testing.T) {
	var st *bbolt.Store
	ts := newTestServer(t, func(c *Config) { st = c.Store.(*bbolt.Store) })
	for path, want := range map[string]string{
		"/livez":                          "ok",
		"/readyz":                         "ok",
		"/healthz":                        "ok",
		"/livez?verbose":                  "[+]ping ok\n[+]log ok\n[+]store ok\nlivez check passed\n",
		"/healthz?verbose=1":              "[+]ping ok\n[+]log ok\n[+]store ok\nhealthz check passed\n",
		"/readyz?verbose":                 "[+]ping ok\n[+]log ok\n[+]store ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n",
		"/readyz?verbose&exclude=store":   "[+]ping ok\n[+]log ok\n[+]store excluded: ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n",
		"/readyz?verbose&exclude=nothere": "[+]ping ok\n[+]log ok\n[+]store ok\n[+]informer-sync ok\n[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"nothere\"\nreadyz check passed\n",
		"/readyz/informer-sync":           "ok",
		"/livez/ping":                     "ok",
		"/healthz/store":                  "ok",
	} {
		code, body := ts.anonGet(t, path)
		assert.Equal(t, http.StatusOK, code, path)
		assert.Equal(t, want, body, path)
	}
	code, _ := ts.anonGet(t, "/readyz/nosuch")
	assert.Equal(t, http.StatusNotFound, code)
	code, _ = ts.anonGet(t, "/livez/informer-sync")
	assert.Equal(t, http.StatusNotFound, code, "informer-sync is a readiness check only")

	require.NoError(t, st.Close())
	code, body := ts.anonGet(t, "/readyz")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, "[+]ping ok\n[+]log ok\n[-]store failed: reason withheld\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check failed\n", body)
	code, body = ts.anonGet(t, "/livez/store")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, "internal server error: the store does not answer\n", body)
}

func TestVersionFromBuildInfo(t *testing.T) {
	v := versionFrom(&debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-03-04T05:06:07Z"},
		{Key: "vcs.modified", Value: "true"},
	}}, true)
	assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", v.GitCommit)
	assert.Equal(t, "2026-03-04T05:06:07Z", v.BuildDate)
	assert.Equal(t, "dirty", v.GitTreeState)
	assert.Equal(t, "v1.32.0-orkit", v.GitVersion)
	v = versionFrom(&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}}, true)
	assert.Equal(t, "clean", v.GitTreeState)
	v = versionFrom(nil, false)
	assert.Empty(t, v.GitCommit, "no build info: nothing invented")
	assert.Equal(t, "1970-01-01T00:00:00Z", v.BuildDate, "kube's unset build date")
}

// TestVersionOfABuiltBinary builds a binary with go build in a clone of
// this checkout's HEAD, as a user builds one, and checks that its Version
// carries the commit and the commit's time. (A clone, because go build
// stamps no VCS information in a git worktree, whose .git is a file.)
func TestVersionOfABuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required: %v", tool, err)
			}
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := func(dir, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s %v: %v: %s", name, args, err, ee.Stderr)
		}
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}
	top := run(".", "git", "rev-parse", "--show-toplevel")
	head := run(".", "git", "rev-parse", "HEAD")
	when := run(".", "git", "log", "-1", "--format=%cI", head)
	clone := filepath.Join(t.TempDir(), "src")
	run(".", "git", "clone", "--quiet", "--shared", "--no-checkout", top, clone)
	run(clone, "git", "checkout", "--quiet", head)
	bin := filepath.Join(t.TempDir(), "version")
	run(clone, "go", "build", "-trimpath", "-o", bin, "./apiserver/testdata/version")
	var v VersionInfo
	require.NoError(t, json.Unmarshal([]byte(run(clone, bin)), &v))
	assert.Equal(t, head, v.GitCommit)
	wantTime, err := time.Parse(time.RFC3339, when)
	require.NoError(t, err)
	gotTime, err := time.Parse(time.RFC3339, v.BuildDate)
	require.NoError(t, err, v.BuildDate)
	assert.True(t, wantTime.Equal(gotTime), "buildDate %s is the commit time %s", v.BuildDate, wantTime)
	assert.Equal(t, "clean", v.GitTreeState)
}
