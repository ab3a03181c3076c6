package deployment_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/internal/testnode"
)

const wait = 60 * time.Second

type env struct {
	cluster *testnode.Cluster
	c       *client.Client
	agent   *testnode.Agent
}

func setup(t testing.TB, nodes int) *env {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	agent := testnode.RunAgent(t, admin, testnode.Config{Nodes: nodes, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	rc, err := replicaset.New(m, replicaset.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	dc, err := deployment.New(m, deployment.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(rc))
	require.NoError(t, m.Add(dc))
	testnode.RunManager(t, m)
	return &env{cluster: cl, c: admin, agent: agent}
}

func newDeployment(name string, replicas int32, image string) *apps.Deployment {
	l := map[string]string{"app": name}
	return &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"},
		Spec: apps.DeploymentSpec{Replicas: &replicas, Selector: &meta.LabelSelector{MatchLabels: l},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: l},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: image}}}}}}
}

func (e *env) deployments() *client.Resource[apps.Deployment, *apps.Deployment] {
	return client.For[apps.Deployment](e.c, "default")
}

// rolledOut reports what kubectl rollout status checks.
func (e *env) rolledOut(t testing.TB, name string) bool {
	d, err := e.deployments().Get(context.Background(), name)
	require.NoError(t, err)
	return d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == *d.Spec.Replicas &&
		d.Status.Replicas == d.Status.UpdatedReplicas && d.Status.AvailableReplicas == d.Status.UpdatedReplicas
}

func (e *env) replicaSets(t testing.TB, d *apps.Deployment) []apps.ReplicaSet {
	l, err := client.For[apps.ReplicaSet](e.c, "default").List(context.Background(), client.ListOptions{})
	require.NoError(t, err)
	var out []apps.ReplicaSet
	for _, rs := range l.Items {
		if ref := meta.ControllerOf(&rs.ObjectMeta); ref != nil && ref.UID == d.UID {
			out = append(out, rs)
		}
	}
	return out
}

// podWatch follows the pods of one app and checks, at every event, that
// at most max pods exist and at least min are ready (not counting
// terminating ones).
type podWatch struct {
	mu         sync.Mutex
	pods       map[string]*core.Pod
	violations []string
	maxSeen    int
	minReady   int
	onEvent    func(map[string]*core.Pod) // under mu
}

func watchPods(t *testing.T, c *client.Client, app string, maxPods, minReady int) (*podWatch, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	pods := client.For[core.Pod](c, "default")
	l, err := pods.List(ctx, client.ListOptions{LabelSelector: "app=" + app})
	require.NoError(t, err)
	ch, err := pods.Watch(ctx, client.ListOptions{LabelSelector: "app=" + app, ResourceVersion: l.ResourceVersion})
	require.NoError(t, err)
	w := &podWatch{pods: map[string]*core.Pod{}, minReady: 1 << 30}
	for i := range l.Items {
		w.pods[l.Items[i].Name] = &l.Items[i]
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			if ev.Object == nil {
				continue
			}
			w.mu.Lock()
			if ev.Type == "DELETED" {
				delete(w.pods, ev.Object.Name)
			} else {
				w.pods[ev.Object.Name] = ev.Object
			}
			live, ready := 0, 0
			for _, p := range w.pods {
				if p.DeletionTimestamp == nil {
					live++
					if core.IsPodReady(p) {
						ready++
					}
				}
			}
			w.maxSeen, w.minReady = max(w.maxSeen, live), min(w.minReady, ready)
			if w.onEvent != nil {
				w.onEvent(w.pods)
			}
			if live > maxPods || ready < minReady {
				w.violations = append(w.violations, fmt.Sprintf("%s %s: %d pods, %d ready", ev.Type, ev.Object.Name, live, ready))
			}
			w.mu.Unlock()
		}
	}()
	return w, func() { cancel(); <-done }
}

func TestRollingUpdateRollbackScale(t *testing.T) {
	e := setup(t, 3)
	ctx := context.Background()
	d, err := e.deployments().Create(ctx, newDeployment("web", 3, "orkit.local/hello:v1"))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool { return e.rolledOut(t, "web") }, "first rollout")
	d, err = e.deployments().Get(ctx, "web")
	require.NoError(t, err)
	assert.Equal(t, "1", d.Annotations[apps.RevisionAnnotation])
	rss := e.replicaSets(t, d)
	require.Len(t, rss, 1)
	hash := rss[0].Labels[apps.DefaultDeploymentUniqueLabelKey]
	assert.Equal(t, "web-"+hash, rss[0].Name)
	assertCondition(t, d, apps.DeploymentAvailable, apps.MinimumReplicasAvailable)
	assertCondition(t, d, apps.DeploymentProgressing, apps.NewRSAvailableReason)

	// Rolling update with maxSurge=1, maxUnavailable=0, watched throughout.
	w, stop := watchPods(t, e.c, "web", 4, 3)
	one, zero := meta.FromInt(1), meta.FromInt(0)
	patch := fmt.Sprintf(`{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":%d,"maxUnavailable":%d}},`+
		`"template":{"spec":{"containers":[{"name":"web","image":"orkit.local/hello:v2"}]}}}}`, one.IntVal, zero.IntVal)
	_, err = e.deployments().Patch(ctx, "web", client.StrategicMergePatchType, []byte(patch))
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		return e.rolledOut(t, "web") && len(e.replicaSets(t, d)) == 2
	}, "second rollout")
	testnode.Eventually(t, wait, func() bool {
		l, err := client.For[core.Pod](e.c, "default").List(ctx, client.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(l.Items) == 3
	}, "old pods gone")
	stop()
	w.mu.Lock()
	assert.Empty(t, w.violations, "maxSurge=1/maxUnavailable=0 held at every event")
	assert.Equal(t, 4, w.maxSeen, "the surge was used")
	assert.Equal(t, 3, w.minReady)
	w.mu.Unlock()
	d, err = e.deployments().Get(ctx, "web")
	require.NoError(t, err)
	assert.Equal(t, "2", d.Annotations[apps.RevisionAnnotation])

	// Rollback: the old ReplicaSet's template back in the Deployment.
	var oldRS apps.ReplicaSet
	for _, rs := range e.replicaSets(t, d) {
		if rs.Annotations[apps.RevisionAnnotation] == "1" {
			oldRS = rs
		}
	}
	require.Equal(t, hash, oldRS.Labels[apps.DefaultDeploymentUniqueLabelKey])
	tmpl := meta.DeepCopy(&oldRS.Spec.Template)
	delete(tmpl.Labels, apps.DefaultDeploymentUniqueLabelKey)
	d.Spec.Template = *tmpl
	_, err = e.deployments().Update(ctx, d)
	require.NoError(t, err)
	testnode.Eventually(t, wait, func() bool {
		if !e.rolledOut(t, "web") {
			return false
		}
		rs, err := client.For[apps.ReplicaSet](e.c, "default").Get(ctx, oldRS.Name)
		return err == nil && rs.Annotations[apps.RevisionAnnotation] == "3" && rs.Status.AvailableReplicas == 3
	}, "rolled back to the first ReplicaSet as revision 3")
	d, err = e.deployments().Get(ctx, "web")
	require.NoError(t, err)
	assert.Equal(t, "orkit.local/hello:v1", d.Spec.Template.Spec.Containers[0].Image)
	assert.Equal(t, "3", d.Annotations[apps.RevisionAnnotation])
	assert.Len(t, e.replicaSets(t, d), 2, "no new ReplicaSet for a rollback")

	// Scale 3 → 50 → 0 (50 through the scale subresource; 0 by a patch:
	// the API server's PUT of a Scale keeps the old size when replicas is
	// 0, which the JSON omits).
	sc, err := e.deployments().Scale(ctx, "web")
	require.NoError(t, err)
	sc.Spec.Replicas = 50
	_, err = e.deployments().UpdateScale(ctx, "web", sc)
	require.NoError(t, err)
	e.waitPods(t, 50)
	_, err = e.deployments().Patch(ctx, "web", client.MergePatchType, []byte(`{"spec":{"replicas":0}}`))
	require.NoError(t, err)
	e.waitPods(t, 0)
}

func (e *env) waitPods(t *testing.T, n int) {
	t.Helper()
	testnode.Eventually(t, wait, func() bool { return e.rolledOut(t, "web") }, "scaled to %d", n)
	testnode.Eventually(t, wait, func() bool {
		l, err := client.For[core.Pod](e.c, "default").List(context.Background(), client.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(l.Items) == n
	}, "%d pods", n)
}

func assertCondition(t *testing.T, d *apps.Deployment, typ apps.DeploymentConditionType, reason string) {
	t.Helper()
	c := deployment.GetCondition(&d.Status, typ)
	if assert.NotNil(t, c, "condition %s", typ) {
		assert.Equal(t, reason, c.Reason, "condition %s", typ)
	}
}
