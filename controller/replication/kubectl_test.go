package replication_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/replication"
	"github.com/orkit/orkit/internal/testnode"
)

func kubectlPath(t *testing.T) string {
	p, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required under CI: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	return p
}

// env is a control plane with the replication controller and two test
// nodes that bind and run pods.
type env struct {
	cluster *testnode.Cluster
	c       *client.Client
}

func setup(t *testing.T) *env {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 2, Bind: true, Logger: testnode.QuietLogger()})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	rc, err := replication.New(m, replication.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(rc))
	testnode.RunManager(t, m)
	return &env{cluster: cl, c: admin}
}

func (e *env) kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath(t), append([]string{"--kubeconfig", e.cluster.AdminKubeconfig, "-n", "default"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *env) run(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := e.kubectl(t, stdin, args...)
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
	return out
}

// readyPods returns the ready, not deleting pods of app=web.
func (e *env) readyPods(t *testing.T) []core.Pod {
	l, err := client.For[core.Pod](e.c, "default").List(context.Background(), client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	var out []core.Pod
	for _, p := range l.Items {
		if p.DeletionTimestamp == nil && core.IsPodReady(&p) {
			out = append(out, p)
		}
	}
	return out
}

const rcManifest = `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  replicas: 3
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: hello
        image: orkit.local/hello:v1
`

// TestKubectlReplicationController drives a ReplicationController as a
// user does: create from YAML (selector and labels defaulted from the
// template), get rc,podtemplates, scale rc, adopt an orphan, delete.
func TestKubectlReplicationController(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	out := e.run(t, rcManifest, "create", "-f", "-")
	assert.Contains(t, out, "replicationcontroller/web created")
	rcs := client.For[core.ReplicationController](e.c, "default")
	rc, err := rcs.Get(ctx, "web")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"app": "web"}, rc.Spec.Selector, "selector defaulted from the template")
	assert.Equal(t, map[string]string{"app": "web"}, rc.Labels, "labels defaulted from the template")
	assert.Equal(t, int64(1), rc.Generation)

	testnode.Eventually(t, time.Minute, func() bool {
		got, err := rcs.Get(ctx, "web")
		return err == nil && got.Status.ReadyReplicas == 3 && got.Status.AvailableReplicas == 3 && got.Status.ObservedGeneration == 1
	}, "3 ready replicas")
	for _, p := range e.readyPods(t) {
		ref := meta.ControllerOf(&p.ObjectMeta)
		require.NotNil(t, ref)
		assert.Equal(t, "v1", ref.APIVersion)
		assert.Equal(t, "ReplicationController", ref.Kind)
		assert.Equal(t, rc.UID, ref.UID)
	}

	_, err = client.For[core.PodTemplate](e.c, "default").Create(ctx, &core.PodTemplate{ObjectMeta: meta.ObjectMeta{Name: "tmpl"},
		Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: map[string]string{"tier": "fe"}},
			Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}}})
	require.NoError(t, err)
	out = e.run(t, "", "get", "rc,podtemplates")
	assert.Regexp(t, `(?m)^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$`, out)
	assert.Regexp(t, `(?m)^replicationcontroller/web\s+3\s+3\s+3\s+\S+$`, out)
	assert.Regexp(t, `(?m)^NAME\s+CONTAINERS\s+IMAGES\s+POD LABELS$`, out)
	assert.Regexp(t, `(?m)^podtemplate/tmpl\s+c\s+orkit.local/hello:v1\s+tier=fe$`, out)
	out = e.run(t, "", "get", "rc", "web", "-o", "wide")
	assert.Regexp(t, `(?m)^web\s+3\s+3\s+3\s+\S+\s+hello\s+orkit.local/hello:v1\s+app=web$`, out)

	out = e.run(t, "", "scale", "rc", "web", "--replicas=1")
	assert.Contains(t, out, "replicationcontroller/web scaled")
	testnode.Eventually(t, time.Minute, func() bool {
		got, err := rcs.Get(ctx, "web")
		return err == nil && got.Status.Replicas == 1 && len(e.readyPods(t)) == 1 && got.Status.ObservedGeneration == 2
	}, "scaled down to 1")
	out = e.run(t, "", "get", "--raw", "/api/v1/namespaces/default/replicationcontrollers/web/scale")
	assert.Contains(t, out, `"kind":"Scale"`)
	assert.Contains(t, out, `"selector":"app=web"`)

	// An orphan the selector matches is adopted, and the extra pod deleted.
	_, err = client.For[core.Pod](e.c, "default").Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "orphan",
		Labels: map[string]string{"app": "web"}}, Spec: core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}}})
	require.NoError(t, err)
	// The orphan is not ready at first, so counting ready pods says nothing
	// about adoption: wait until one live pod is left, every live pod is
	// owned by the controller, and describe (status) agrees.
	testnode.Eventually(t, time.Minute, func() bool {
		l, err := client.For[core.Pod](e.c, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false
		}
		live := 0
		for _, p := range l.Items {
			if p.DeletionTimestamp != nil {
				continue
			}
			if ref := meta.ControllerOf(&p.ObjectMeta); ref == nil || ref.UID != rc.UID {
				return false
			}
			live++
		}
		out = e.run(t, "", "describe", "rc", "web")
		return live == 1 && regexp.MustCompile(`Replicas:\s+1 current / 1 desired`).MatchString(out)
	}, "orphan adopted and one pod deleted")
	assert.Regexp(t, `SuccessfulCreate\s+.*replication-controller\s+Created pod: web-`, out)
}

// TestReplicationControllerRefused: malformed and conflicting input gets
// kube-apiserver's errors, and a user without rights is refused.
func TestReplicationControllerRefused(t *testing.T) {
	e := setup(t)
	cases := []struct{ name, manifest, want string }{
		{"selector does not match template", strings.Replace(rcManifest, "spec:\n  replicas: 3", "spec:\n  replicas: 3\n  selector: {app: other}", 1),
			"spec.template.metadata.labels: Invalid value: map[app:web]: `selector` does not match template `labels`"},
		{"negative replicas", strings.Replace(rcManifest, "replicas: 3", "replicas: -1", 1),
			"spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{"restart policy", strings.Replace(rcManifest, "      containers:", "      restartPolicy: OnFailure\n      containers:", 1),
			`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`},
		{"no template", "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: empty}\nspec: {selector: {app: web}}\n",
			"spec.template: Required value"},
		{"unknown field", strings.Replace(rcManifest, "replicas: 3", "replicas: 3\n  replica: 2", 1),
			`strict decoding error: unknown field "spec.replica"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.kubectl(t, tc.manifest, "create", "-f", "-")
			require.Error(t, err)
			assert.Contains(t, out, tc.want)
		})
	}
	e.run(t, rcManifest, "create", "-f", "-")
	out, err := e.kubectl(t, rcManifest, "create", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, out, `replicationcontrollers "web" already exists`)
	out, err = e.kubectl(t, "", "scale", "rc", "web", "--replicas=2", "--as=mallory")
	require.Error(t, err)
	assert.Contains(t, out, `User "mallory" cannot get resource "replicationcontrollers" in API group "" in the namespace "default"`)
}
