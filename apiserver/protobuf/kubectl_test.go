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
		{name: "secret-dockerregistry", args: []string{"create", "secret", "docker-registry", "reg", "--docker-server=registry.local:5000", "--docker-username=u", "--docker-password=p"}},
		{name: "service-externalname", args: []string{"create", "service", "externalname", "ext", "--external-name=db.example.com"}},
		{name: "service-loadbalancer", args: []string{"create", "service", "loadbalancer", "lb", "--tcp=80:8080", "--tcp=53:53"}},
		{name: "service-headless", args: []string{"create", "service", "clusterip", "headless", "--clusterip=None", "--tcp=5432"}},
		{name: "clusterrole-aggregated", args: []string{"create", "clusterrole", "agg", "--aggregation-rule=rbac.example.com/aggregate-to-agg=true"}},
		{name: "role-apigroups", args: []string{"create", "role", "deployer", "--verb=create,update,patch", "--resource=deployments.apps,pods/log,configmaps"}},
		{name: "rolebinding-role", args: []string{"create", "rolebinding", "rb2", "--role=deployer", "--group=team"}},
		{name: "priorityclass-default", args: []string{"create", "priorityclass", "low", "--value=0", "--global-default"}},
		{name: "configmap-envfile", args: []string{"create", "configmap", "envs", "--from-env-file={env}"}},
		{name: "configmap-binary", args: []string{"create", "configmap", "bin", "--from-file=data.bin={bin}", "--from-literal=t=text"}},
		{
			name: "tokenrequest", args: []string{"create", "token", "sa", "--audience=api", "--duration=1h"},
			want: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"creationTimestamp":null},
				"spec":{"audiences":["api"],"expirationSeconds":3600},"status":{"token":"","expirationTimestamp":null}}`,
		},
		{
			name: "selfsubjectreview", args: []string{"auth", "whoami"},
			want: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{"creationTimestamp":null},"status":{"userInfo":{}}}`,
		},
		{
			name: "selfsubjectrulesreview", args: []string{"auth", "can-i", "--list", "--namespace=kube-system"},
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{"creationTimestamp":null},
				"spec":{"namespace":"kube-system"},"status":{"resourceRules":null,"nonResourceRules":null,"incomplete":false}}`,
		},
		{name: "job", args: []string{"create", "job", "j", "--image=busybox", "--", "echo", "hi"}},
		{name: "cronjob", args: []string{"create", "cronjob", "c", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"}},
		{name: "pdb", args: []string{"create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=2"}},
		{name: "ingress", args: []string{"create", "ingress", "web", "--class=nginx", "--default-backend=fallback:80",
			"--rule=web.example/=web:80", "--rule=api.example/v1*=api:http,tls=api-tls"}},
		{name: "pdb-maxunavailable", args: []string{"create", "pdb", "db", "--selector=app in (db)", "--max-unavailable=25%"}},
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
// lookKubectl returns kubectl's path; without it the test skips, or fails
// when CI=true.
func lookKubectl(t *testing.T) string {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required with CI=true: %v", err)
		}
		t.Skipf("kubectl not installed: %v", err)
	}
	return kubectl
}

func TestKubectlBodies(t *testing.T) {
	kubectl := lookKubectl(t)
	rec := newRecorder(t)
	bin := filepath.Join(t.TempDir(), "data.bin")
	require.NoError(t, os.WriteFile(bin, []byte{0xff, 0xfe, 0x00, 0x01, 'k', '8', 's'}, 0o600))
	env := filepath.Join(t.TempDir(), "app.env")
	require.NoError(t, os.WriteFile(env, []byte("A=1\nB=with space\n# comment\nEMPTY=\n"), 0o600))
	for _, tc := range kubectlCases() {
		for i, a := range tc.args {
			tc.args[i] = strings.NewReplacer("{bin}", bin, "{env}", env).Replace(a)
		}
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

// TestUnknownKind checks that a kind without a schema (storage.k8s.io/v1beta1
// VolumeAttributesClass, a version orkit does not serve) gives
// ErrUnknownKind naming it.
func TestUnknownKind(t *testing.T) {
	_, gvk, err := ToJSON(wrap("storage.k8s.io/v1beta1", "VolumeAttributesClass", pbMsg{}.msg(1, objectMetaPB("deny"))))
	require.ErrorIs(t, err, ErrUnknownKind)
	assert.Equal(t, "storage.k8s.io/v1beta1, Kind=VolumeAttributesClass", gvk.String())
	assert.Contains(t, err.Error(), "storage.k8s.io/v1beta1, Kind=VolumeAttributesClass")
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
	if req.Header.Get("Content-Type") == ContentType {
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
		obj := existingObject(req.URL.Path)
		if obj == nil {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
			return
		}
		_, _ = w.Write(obj)
	case http.MethodPatch:
		_, _ = w.Write(existingObject("/api/v1/nodes/n1"))
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// createdObject answers a create with what kubectl needs to print: the
// review results, a token, or the converted body itself.
func createdObject(path string, body []byte) []byte {
	switch {
	case strings.HasSuffix(path, "/selfsubjectaccessreviews"):
		return []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","status":{"allowed":true}}`)
	case strings.HasSuffix(path, "/selfsubjectrulesreviews"):
		return []byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","status":{"incomplete":false,
			"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}}`)
	case strings.HasSuffix(path, "/selfsubjectreviews"):
		return []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","status":{"userInfo":{"username":"test"}}}`)
	case strings.HasSuffix(path, "/token"):
		return []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","status":{"token":"t","expirationTimestamp":"2030-01-01T00:00:00Z"}}`)
	case strings.HasSuffix(path, "/eviction"):
		return []byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	}
	if j, _, err := ToJSON(body); err == nil {
		return j
	}
	return []byte(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"default"}}`)
}

// existingObject answers the GETs kubectl makes before writing: the pod
// kubectl debug copies, the node and pods kubectl drain handles, the
// deployment kubectl expose reads, the configmap kubectl delete removes.
// A nil result is 404 (the evicted pod is gone).
func existingObject(path string) []byte {
	switch path {
	case "/api/v1/namespaces/default/pods/full":
		b, err := os.ReadFile("testdata/fullpod-source.json")
		if err != nil {
			return nil
		}
		return b
	case "/api/v1/nodes/n1":
		return []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u-n1"},"spec":{}}`)
	case "/api/v1/pods":
		return []byte(`{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1"},"items":[{"metadata":
			{"name":"p","namespace":"default","uid":"u-p"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox"}]}}]}`)
	case "/api/v1/namespaces/default/pods/p":
		return nil
	case "/apis/apps/v1/namespaces/default/deployments/web":
		return []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","uid":"u-web"},
			"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
			"spec":{"containers":[{"name":"nginx","image":"nginx:1"}]}}}}`)
	}
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

// TestKubectlDebugCopy has kubectl copy a pod that sets (nearly) every
// PodSpec field: kubectl decodes testdata/fullpod-source.json into its typed
// Pod and sends it back with its own protobuf encoder. The expected JSON is
// the source with exactly what "kubectl debug --copy-to" changes, plus
// Kubernetes' canonical forms (quantities, omitted zero non-pointer fields).
func TestKubectlDebugCopy(t *testing.T) {
	kubectl := lookKubectl(t)
	rec := newRecorder(t)
	body := rec.capture(t, kubectl, []string{"debug", "full", "--copy-to=full-copy", "--image=busybox",
		"--container=dbg", "--keep-annotations", "--keep-liveness", "--keep-readiness", "--keep-startup", "--profile=legacy"})
	got, gvk, err := ToJSON(body)
	require.NoError(t, err)
	assert.Equal(t, "v1, Kind=Pod", gvk.String())
	want := debugCopyOf(t)
	assertSameJSON(t, want, string(got))
	if *update {
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "pod.pb"), body, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "pod.json"), indentJSON(t, want), 0o644))
	}
}

// debugCopyOf returns the JSON of the pod kubectl debug --copy-to sends for
// testdata/fullpod-source.json.
func debugCopyOf(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/fullpod-source.json")
	require.NoError(t, err)
	var pod map[string]any
	require.NoError(t, json.Unmarshal(src, &pod))
	md := pod["metadata"].(map[string]any)
	pod["metadata"] = map[string]any{"name": "full-copy", "namespace": "default", "creationTimestamp": nil, "annotations": md["annotations"]}
	pod["status"] = map[string]any{}
	spec := pod["spec"].(map[string]any)
	delete(spec, "nodeName")            // not kept without --same-node
	delete(spec, "ephemeralContainers") // never copied
	delete(spec, "hostNetwork")         // false: a zero non-pointer field
	spec["overhead"].(map[string]any)["memory"] = "1536Mi"
	spec["containers"] = append(spec["containers"].([]any), map[string]any{
		"name": "dbg", "image": "busybox", "resources": map[string]any{}, "terminationMessagePolicy": "File",
	})
	for _, v := range spec["volumes"].([]any) {
		if e, ok := v.(map[string]any)["ephemeral"]; ok {
			tmpl := e.(map[string]any)["volumeClaimTemplate"].(map[string]any)
			tmpl["metadata"].(map[string]any)["creationTimestamp"] = nil
		}
	}
	out, err := json.Marshal(pod)
	require.NoError(t, err)
	return string(out)
}
