package protobuf

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.pb and *.json from the real kubectl")

// kubectlCase is one kubectl invocation whose protobuf request body is
// captured. The expected JSON is what kubectl prints for the same command
// with --dry-run=client -o json, or want when that cannot be printed.
type kubectlCase struct {
	name string   // testdata/<name>.pb and testdata/<name>.json
	args []string // kubectl arguments
	want string   // expected JSON when there is no dry-run form
}

func kubectlCases() []kubectlCase {
	return []kubectlCase{
		{name: "namespace", args: []string{"create", "namespace", "x"}},
		{name: "deployment", args: []string{"create", "deployment", "web", "--image=nginx:1", "--replicas=3"}},
		{name: "deployment-zero", args: []string{"create", "deployment", "zero", "--image=nginx:1", "--replicas=0", "--port=8080"}},
		{name: "configmap", args: []string{"create", "configmap", "c", "--from-literal=a=1", "--from-literal=b=two"}},
		{name: "secret", args: []string{"create", "secret", "generic", "s", "--from-literal=p=q", "--type=Opaque"}},
		{name: "service", args: []string{"create", "service", "clusterip", "svc", "--tcp=80:8080"}},
		{name: "service-nodeport", args: []string{"create", "service", "nodeport", "np", "--tcp=443:https", "--node-port=30080"}},
		{name: "serviceaccount", args: []string{"create", "serviceaccount", "sa"}},
		{name: "role", args: []string{"create", "role", "r", "--verb=get", "--verb=list", "--resource=pods", "--resource-name=p1"}},
		{name: "clusterrole", args: []string{"create", "clusterrole", "cr", "--verb=get", "--non-resource-url=/healthz"}},
		{name: "rolebinding", args: []string{"create", "rolebinding", "rb", "--clusterrole=view", "--user=alice", "--serviceaccount=default:sa"}},
		{name: "clusterrolebinding", args: []string{"create", "clusterrolebinding", "crb", "--clusterrole=view", "--group=devs"}},
		{name: "quota", args: []string{"create", "quota", "q", "--hard=pods=2,cpu=1,memory=1Gi"}},
		{name: "priorityclass", args: []string{"create", "priorityclass", "pc", "--value=1000", "--description=high", "--preemption-policy=Never"}},
		{
			name: "selfsubjectaccessreview", args: []string{"auth", "can-i", "get", "pods"},
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
				"spec":{"resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}},"status":{"allowed":false}}`,
		},
	}
}

// TestKubectlBodies runs the real kubectl against a recording server and
// checks that ToJSON of every protobuf body it sends equals the JSON kubectl
// prints for the same object. With -update it rewrites the golden files.
func TestKubectlBodies(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required with CI=true: %v", err)
		}
		t.Skipf("kubectl not installed: %v", err)
	}
	rec := newRecorder(t)
	for _, tc := range kubectlCases() {
		t.Run(tc.name, func(t *testing.T) {
			body := rec.capture(t, kubectl, tc.args)
			want := tc.want
			if want == "" {
				want = rec.dryRun(t, kubectl, tc.args)
			}
			got, _, err := ToJSON(body)
			require.NoError(t, err)
			assertSameJSON(t, want, string(got))
			if *update {
				require.NoError(t, os.WriteFile(filepath.Join("testdata", tc.name+".pb"), body, 0o644))
				require.NoError(t, os.WriteFile(filepath.Join("testdata", tc.name+".json"), indentJSON(t, want), 0o644))
			}
		})
	}
}

// TestKubectlUnknownKind checks that a kind without a schema (batch/v1 Job,
// sent by kubectl create job) gives ErrUnknownKind naming it.
func TestKubectlUnknownKind(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skipf("kubectl not installed: %v", err)
	}
	rec := newRecorder(t)
	body := rec.capture(t, kubectl, []string{"create", "job", "j", "--image=busybox"})
	_, gvk, err := ToJSON(body)
	require.ErrorIs(t, err, ErrUnknownKind)
	assert.Equal(t, "batch/v1, Kind=Job", gvk.String())
	assert.Contains(t, err.Error(), "batch/v1, Kind=Job")
	if *update {
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "job.pb"), body, 0o644))
	}
}

// recorder is a fake API server that answers discovery from a static
// table, records the protobuf body of each write and answers it with a
// plausible JSON object.
type recorder struct {
	srv        *httptest.Server
	kubeconfig string
	cacheDir   string

	mu   sync.Mutex
	body []byte
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{cacheDir: t.TempDir()}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	r.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- cluster: {server: %q}
  name: c
contexts:
- context: {cluster: c, user: u, namespace: default}
  name: c
current-context: c
users:
- name: u
  user: {token: test}
`, r.srv.URL)
	require.NoError(t, os.WriteFile(r.kubeconfig, []byte(cfg), 0o600))
	return r
}

// run runs kubectl with args against the recorder and returns its stdout.
func (r *recorder) run(t *testing.T, kubectl string, args []string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", r.kubeconfig, "--cache-dir", r.cacheDir}, args...)
	cmd := exec.CommandContext(ctx, kubectl, full...)
	cmd.Env = append(os.Environ(), "HOME="+r.cacheDir, "KUBECONFIG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "kubectl %s: %s", strings.Join(args, " "), stderr.String())
	return stdout.Bytes()
}

// capture runs kubectl and returns the protobuf body of its last write.
func (r *recorder) capture(t *testing.T, kubectl string, args []string) []byte {
	t.Helper()
	r.mu.Lock()
	r.body = nil
	r.mu.Unlock()
	r.run(t, kubectl, args)
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotNil(t, r.body, "kubectl %s sent no protobuf body", strings.Join(args, " "))
	return r.body
}

// dryRun returns what kubectl prints for args with --dry-run=client -o json.
func (r *recorder) dryRun(t *testing.T, kubectl string, args []string) string {
	t.Helper()
	full := append([]string{}, args...)
	extra := []string{"--dry-run=client", "-o", "json"}
	for i, a := range full {
		if a == "--" { // kubectl run ... -- command: flags go before "--"
			full = append(append(append([]string{}, full[:i]...), extra...), full[i:]...)
			return string(r.run(t, kubectl, full))
		}
	}
	return string(r.run(t, kubectl, append(full, extra...)))
}

func (r *recorder) serve(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if os.Getenv("H9LOG") != "" {
		fmt.Fprintf(os.Stderr, "%s %s ct=%q %d\n", req.Method, req.URL, req.Header.Get("Content-Type"), len(b))
	}
	w.Header().Set("Content-Type", "application/json")
	if req.Header.Get("Content-Type") == "application/vnd.kubernetes.protobuf" {
		r.mu.Lock()
		r.body = b
		r.mu.Unlock()
	}
	if doc, ok := discovery[req.URL.Path]; ok && req.Method == http.MethodGet {
		_, _ = io.WriteString(w, doc)
		return
	}
	switch req.Method {
	case http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(createdObject(req.URL.Path, b))
	case http.MethodDelete:
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	case http.MethodGet:
		_, _ = w.Write(existingObject(req.URL.Path))
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// createdObject answers a create with the converted body, or with a
// minimal object when the body has no schema (kubectl only prints names).
func createdObject(path string, body []byte) []byte {
	if strings.HasSuffix(path, "/selfsubjectaccessreviews") {
		return []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","status":{"allowed":true}}`)
	}
	if j, _, err := ToJSON(body); err == nil {
		return j
	}
	return []byte(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"default"}}`)
}

// existingObject answers the GET kubectl delete makes before deleting.
func existingObject(path string) []byte {
	name := path[strings.LastIndex(path, "/")+1:]
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"default","uid":"u-1","resourceVersion":"5"}}`)
}

func assertSameJSON(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal([]byte(want), &w), "want: %s", want)
	require.NoError(t, json.Unmarshal([]byte(got), &g), "got: %s", got)
	assert.Equal(t, w, g, "got JSON: %s", got)
}

func indentJSON(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, []byte(s), "", "  "))
	return append(buf.Bytes(), '\n')
}
