package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunCommands(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			http.Error(w, "nope", 500)
			return
		}
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	tests := []struct {
		name       string
		argv       []string
		wantCode   int
		wantOut    string
		wantErrSub string
	}{
		{"echo", []string{"/hello", "echo", "a", "b"}, 0, "a b\n", ""},
		{"echo by argv0", []string{"/bin/echo", "x"}, 0, "x\n", ""},
		{"echo-err", []string{"/hello", "echo-err", "oops"}, 0, "", "oops"},
		{"print", []string{"/hello", "print", "partial"}, 0, "partial", ""},
		{"exit", []string{"/hello", "exit", "3"}, 3, "", ""},
		{"exit bad", []string{"/hello", "exit", "x"}, 1, "", "bad code"},
		{"write", []string{"/hello", "write", file, "hi", "there"}, 0, "", ""},
		{"cat", []string{"/hello", "cat", file}, 0, "hi there", ""},
		{"cat missing", []string{"/hello", "cat", filepath.Join(dir, "nope")}, 1, "", "no such file"},
		{"ls", []string{"/hello", "ls", dir}, 0, "f\n", ""},
		{"rm-dir of a file", []string{"/hello", "rm-dir", file}, 1, "", "is not a directory"},
		{"rm-dir missing", []string{"/hello", "rm-dir", filepath.Join(dir, "nope")}, 0, "", ""},
		{"wget", []string{"/hello", "wget", srv.URL}, 0, "body", ""},
		{"wget 500", []string{"/hello", "wget", srv.URL + "/bad"}, 1, "nope\n", "500"},
		{"wget refused", []string{"/hello", "wget", "http://127.0.0.1:1/"}, 1, "", "wget"},
		{"wget timeout flag", []string{"/hello", "wget", "--timeout", "5s", srv.URL}, 0, "body", ""},
		{"wget bad timeout", []string{"/hello", "wget", "--timeout", "soon", srv.URL}, 1, "", "want a positive duration"},
		{"sleep", []string{"/hello", "sleep", "1ms"}, 0, "", ""},
		{"sleep bad", []string{"/hello", "sleep", "soon"}, 1, "", "invalid duration"},
		{"resolve", []string{"/hello", "resolve", "localhost"}, 0, "", ""},
		{"unknown", []string{"/hello", "frobnicate"}, 2, "", "unknown command"},
		{"missing arg", []string{"/hello", "cat"}, 2, "", "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.argv, &out, &errb)
			assert.Equal(t, tt.wantCode, code, "stderr: %s", errb.String())
			if tt.wantOut != "" || tt.name == "print" {
				assert.Equal(t, tt.wantOut, out.String())
			}
			if tt.wantErrSub != "" {
				assert.Contains(t, errb.String(), tt.wantErrSub)
			}
		})
	}
}

func TestHandler(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "fail")
	env := map[string]string{}
	var log bytes.Buffer
	h := newHandler(func(k string) string { return env[k] }, &log)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	host, _ := os.Hostname()
	code, body := get("/")
	assert.Equal(t, 200, code)
	assert.Equal(t, host+"\n", body)
	code, _ = get("/healthz")
	assert.Equal(t, 200, code)
	env["HELLO_FAIL_HEALTH"] = "1"
	code, _ = get("/healthz")
	assert.Equal(t, 500, code)
	env["HELLO_FAIL_HEALTH"] = flag
	code, _ = get("/healthz")
	assert.Equal(t, 200, code, "file absent: healthy")
	require.NoError(t, os.WriteFile(flag, nil, 0o644))
	code, _ = get("/healthz")
	assert.Equal(t, 500, code, "file present: unhealthy")
	code, _ = get("/nope")
	assert.Equal(t, 404, code)
	assert.Equal(t, 6, strings.Count(log.String(), "GET "))
}

func TestExitPlan(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		wantAfter time.Duration
		wantCode  int
		wantErr   bool
	}{
		{"none", nil, 0, 0, false},
		{"after", map[string]string{"HELLO_EXIT_AFTER": "2s", "HELLO_EXIT_CODE": "7"}, 2 * time.Second, 7, false},
		{"bad after", map[string]string{"HELLO_EXIT_AFTER": "x"}, 0, 0, true},
		{"negative after", map[string]string{"HELLO_EXIT_AFTER": "-1s"}, 0, 0, true},
		{"bad code", map[string]string{"HELLO_EXIT_CODE": "300"}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, c, err := exitPlan(func(k string) string { return tt.env[k] })
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantAfter, a)
			assert.Equal(t, tt.wantCode, c)
		})
	}
}

func TestServeExitAfter(t *testing.T) {
	env := map[string]string{"PORT": "0", "HELLO_EXIT_AFTER": "50ms", "HELLO_EXIT_CODE": "4"}
	var out, errb bytes.Buffer
	code := serve(func(k string) string { return env[k] }, &out, &errb)
	assert.Equal(t, 4, code, errb.String())
	assert.Contains(t, out.String(), "exiting after")
}

func TestRmDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pvc-1_default_data")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("x"), 0o644))
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run([]string{"/hello", "rm-dir", dir}, &out, &errOut), errOut.String())
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "the tree is gone")
}
