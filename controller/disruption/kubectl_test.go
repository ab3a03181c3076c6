package disruption_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/policy"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/deployment"
	"github.com/orkit/orkit/controller/disruption"
	"github.com/orkit/orkit/controller/replicaset"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/scheduler"
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

// env is a control plane with the replicaset, deployment and disruption
// controllers, a scheduler and two test nodes.
type env struct {
	cluster *testnode.Cluster
	c       *client.Client
	agent   *testnode.Agent
	nodes   []string
}

func setup(t *testing.T) *env {
	t.Helper()
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	agent := testnode.RunAgent(t, admin, testnode.Config{Nodes: 2})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	rc, err := replicaset.New(m, replicaset.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	dc, err := deployment.New(m, deployment.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	pc, err := disruption.New(m, disruption.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	for _, c := range []controller.Runnable{rc, dc, pc} {
		require.NoError(t, m.Add(c))
	}
	testnode.RunManager(t, m)
	runScheduler(t, admin)
	return &env{cluster: cl, c: admin, agent: agent, nodes: agent.NodeNames()}
}

func runScheduler(t *testing.T, c *client.Client) {
	t.Helper()
	s, err := scheduler.New(scheduler.Config{Client: c, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-s.Synced():
	case err := <-done:
		done <- err
		t.Fatalf("scheduler stopped: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("scheduler did not sync")
	}
}

func (e *env) kubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath(t), append([]string{"--kubeconfig", e.cluster.AdminKubeconfig, "-n", "default"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *env) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := e.kubectl(t, args...)
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
	return out
}

// podsOn returns the live (not deleting) pods of app=web by node.
func (e *env) podsByNode(t *testing.T) map[string][]string {
	t.Helper()
	l, err := client.For[core.Pod](e.c, "default").List(context.Background(), client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	out := map[string][]string{}
	for _, p := range l.Items {
		if p.DeletionTimestamp == nil && core.IsPodReady(&p) {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p.Name)
		}
	}
	return out
}

// evict POSTs body to the pod's eviction subresource as the admin.
func (e *env) evict(t *testing.T, pod, body string) (string, error) {
	t.Helper()
	cmd := exec.Command(kubectlPath(t), "--kubeconfig", e.cluster.AdminKubeconfig, "create", "--raw",
		"/api/v1/namespaces/default/pods/"+pod+"/eviction", "-f", "-")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// eviction is the body of an eviction of pod, with extra fields.
func eviction(pod, extra string) string {
	return `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + pod + `","namespace":"default"}` + extra + `}`
}

// createPDB creates the budget name over app=web with the bound given
// as JSON ("minAvailable":2).
func (e *env) createPDB(t *testing.T, name, bound string) {
	t.Helper()
	cmd := exec.Command(kubectlPath(t), "--kubeconfig", e.cluster.AdminKubeconfig, "-n", "default", "create", "-f", "-")
	cmd.Stdin = strings.NewReader(`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"` + name + `"},
		"spec":{` + bound + `,"selector":{"matchLabels":{"app":"web"}}}}`)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "kubectl create pdb: %s", out)
}

func (e *env) pdb(t *testing.T) *policy.PodDisruptionBudget {
	t.Helper()
	p, err := client.For[policy.PodDisruptionBudget](e.c, "default").Get(context.Background(), "web")
	require.NoError(t, err)
	return p
}

// TestKubectlDrain drains a node that holds all three pods of a
// Deployment protected by a PodDisruptionBudget of minAvailable 2 with the
// real kubectl: the pods are evicted (not deleted), the first eviction
// goes ahead, the others are refused with 429 until replacements run on
// the other node, and the drain completes.
func TestKubectlDrain(t *testing.T) {
	e := setup(t)
	src, dst := e.nodes[0], e.nodes[1]
	e.run(t, "cordon", dst) // every pod on src first
	e.run(t, "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=3")
	e.run(t, "rollout", "status", "deployment/web", "--timeout=60s")
	require.Len(t, e.podsByNode(t)[src], 3)
	e.run(t, "uncordon", dst)

	e.run(t, "create", "pdb", "web", "--selector=app=web", "--min-available=2")
	testnode.Eventually(t, 30*time.Second, func() bool {
		p := e.pdb(t)
		return p.Status.ObservedGeneration == p.Generation && p.Status.DisruptionsAllowed == 1
	}, "the budget allows one disruption")
	out := e.run(t, "get", "pdb")
	assert.Regexp(t, `NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE`, out)
	assert.Regexp(t, `(?m)^web\s+2\s+N/A\s+1\s+\S+$`, out)
	out = e.run(t, "describe", "pdb", "web")
	for _, re := range []string{`Min available:\s+2`, `Selector:\s+app=web`, `Allowed disruptions:\s+1`, `Current:\s+3`, `Desired:\s+2`, `Total:\s+3`} {
		assert.Regexp(t, re, out)
	}
	p := e.pdb(t)
	assert.Equal(t, [4]int32{3, 2, 3, 1}, [4]int32{p.Status.ExpectedPods, p.Status.DesiredHealthy, p.Status.CurrentHealthy, p.Status.DisruptionsAllowed})
	c := policy.FindCondition(p.Status.Conditions, policy.DisruptionAllowedCondition)
	require.NotNil(t, c)
	assert.Equal(t, policy.SufficientPodsReason, c.Reason)

	// A server dry run evicts nothing and takes nothing from the budget.
	out = e.run(t, "drain", src, "--ignore-daemonsets", "--dry-run=server", "--timeout=30s")
	assert.Contains(t, out, "(server dry run)")
	assert.Len(t, e.podsByNode(t)[src], 3)
	p = e.pdb(t)
	assert.Equal(t, int32(1), p.Status.DisruptionsAllowed)
	assert.Empty(t, p.Status.DisruptedPods)
	node, err := client.For[core.Node](e.c, "").Get(context.Background(), src)
	require.NoError(t, err)
	assert.False(t, node.Spec.Unschedulable, "a dry run does not cordon")

	start := time.Now()
	out, err = e.kubectl(t, "drain", src, "--ignore-daemonsets", "--timeout=100s")
	require.NoError(t, err, "kubectl drain: %s", out)
	t.Logf("kubectl drain took %v:\n%s", time.Since(start).Round(time.Millisecond), out)
	assert.Contains(t, out, "node/"+src+" cordoned")
	evicting := map[string]bool{}
	for _, m := range regexp.MustCompile(`evicting pod default/(web-\S+)`).FindAllStringSubmatch(out, -1) {
		evicting[m[1]] = true
	}
	assert.Len(t, evicting, 3, "every pod is evicted, some more than once")
	assert.Len(t, regexp.MustCompile(`pod/web-\S+ evicted`).FindAllString(out, -1), 3)
	assert.NotContains(t, out, "deleted")
	assert.Regexp(t, `error when evicting pods/"web-\S+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\.`, out)
	assert.Contains(t, out, "node/"+src+" drained")

	testnode.Eventually(t, 30*time.Second, func() bool {
		by := e.podsByNode(t)
		return len(by[src]) == 0 && len(by[dst]) == 3
	}, "three pods running on %s", dst)
	testnode.Eventually(t, 30*time.Second, func() bool {
		p := e.pdb(t)
		return p.Status.CurrentHealthy == 3 && p.Status.DisruptionsAllowed == 1 && len(p.Status.DisruptedPods) == 0
	}, "the budget is whole again")
}

// TestEvictionRaw posts Evictions with kubectl create --raw (as
// client-go's Evict does) and checks kube-apiserver's answers: 429 while
// the budget allows nothing, a dry run that changes nothing, success, 500
// for a pod under two budgets, 400 for a body naming another pod, 404 for
// a pod that does not exist.
func TestEvictionRaw(t *testing.T) {
	e := setup(t)
	e.run(t, "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=2")
	e.run(t, "rollout", "status", "deployment/web", "--timeout=60s")
	e.createPDB(t, "web", `"minAvailable":2`)
	testnode.Eventually(t, 30*time.Second, func() bool {
		p := e.pdb(t)
		return p.Status.ObservedGeneration == 1 && p.Status.CurrentHealthy == 2
	}, "budget observed")
	var victim string
	for _, pods := range e.podsByNode(t) {
		victim = pods[0]
	}
	evict := func(name, body string) (string, error) { t.Helper(); return e.evict(t, name, body) }

	// Who may evict: edit (and admin) may, view may not.
	e.run(t, "create", "rolebinding", "alice-edit", "--clusterrole=edit", "--user=alice")
	e.run(t, "create", "rolebinding", "bob-view", "--clusterrole=view", "--user=bob")
	as := func(user string) string {
		kc := filepath.Join(t.TempDir(), user+".kubeconfig")
		require.NoError(t, e.cluster.CP.WriteKubeconfig(kc, user))
		return kc
	}
	alice, bob := as("alice"), as("bob")
	canI := []string{"-n", "default", "auth", "can-i", "create", "pods", "--subresource=eviction"}
	b, _ := exec.Command(kubectlPath(t), append([]string{"--kubeconfig", alice}, canI...)...).CombinedOutput()
	assert.Equal(t, "yes", strings.TrimSpace(string(b)))
	b, _ = exec.Command(kubectlPath(t), append([]string{"--kubeconfig", bob}, canI...)...).CombinedOutput()
	assert.Equal(t, "no", strings.TrimSpace(string(b)))
	cmd := exec.Command(kubectlPath(t), "--kubeconfig", bob, "create", "--raw", "/api/v1/namespaces/default/pods/"+victim+"/eviction", "-f", "-")
	cmd.Stdin = strings.NewReader(eviction(victim, ""))
	b, err := cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(b), `User "bob" cannot create resource "pods/eviction"`)

	out, err := evict(victim, eviction(victim, ""))
	require.Error(t, err)
	assert.Contains(t, out, "Cannot evict pod as it would violate the pod's disruption budget.")
	assert.Contains(t, out, "TooManyRequests")

	e.run(t, "patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"minAvailable":1}}`)
	testnode.Eventually(t, 30*time.Second, func() bool {
		p := e.pdb(t)
		return p.Status.ObservedGeneration == 2 && p.Status.DisruptionsAllowed == 1
	}, "the budget allows one disruption")

	out, err = evict(victim, eviction(victim, `,"deleteOptions":{"dryRun":["All"]}`))
	require.NoError(t, err, out)
	assert.Contains(t, out, `"status":"Success"`)
	pod, err := client.For[core.Pod](e.c, "default").Get(context.Background(), victim)
	require.NoError(t, err, "a dry run deletes nothing")
	assert.Nil(t, pod.DeletionTimestamp)
	_, cond := core.GetPodCondition(&pod.Status, core.DisruptionTarget)
	assert.Nil(t, cond, "a dry run marks nothing")
	p := e.pdb(t)
	assert.Equal(t, int32(1), p.Status.DisruptionsAllowed, "a dry run takes no disruption")
	assert.Empty(t, p.Status.DisruptedPods)

	out, err = evict(victim, eviction("other", ""))
	require.Error(t, err)
	assert.Contains(t, out, "name in URL does not match name in Eviction object")
	out, err = evict("nope", eviction("", ""))
	require.Error(t, err)
	assert.Contains(t, out, "NotFound")

	e.run(t, "create", "pdb", "web-too", "--selector=app=web", "--max-unavailable=1")
	out, err = evict(victim, eviction(victim, ""))
	require.Error(t, err)
	assert.Contains(t, out, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
	e.run(t, "delete", "pdb", "web-too")

	out, err = evict(victim, eviction(victim, ""))
	require.NoError(t, err, out)
	assert.Contains(t, out, `"status":"Success"`)
	testnode.Eventually(t, 30*time.Second, func() bool {
		_, err := client.For[core.Pod](e.c, "default").Get(context.Background(), victim)
		return err != nil
	}, "the evicted pod is gone")
	testnode.Eventually(t, 30*time.Second, func() bool {
		p := e.pdb(t)
		return p.Status.CurrentHealthy == 2 && p.Status.DisruptionsAllowed == 1 && len(p.Status.DisruptedPods) == 0
	}, "the budget is whole again once the replacement runs")
}

// TestEvictUnhealthyPods checks the evictions of running pods that are
// not Ready: they go without taking a disruption while the budget is
// healthy without them; otherwise only with unhealthyPodEvictionPolicy
// AlwaysAllow.
func TestEvictUnhealthyPods(t *testing.T) {
	e := setup(t)
	e.run(t, "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=3")
	e.run(t, "rollout", "status", "deployment/web", "--timeout=60s")
	var names []string
	for _, pods := range e.podsByNode(t) {
		names = append(names, pods...)
	}
	require.Len(t, names, 3)
	sick := map[string]bool{names[0]: true}
	var mu sync.Mutex
	fate := func(p *core.Pod) testnode.Fate {
		mu.Lock()
		defer mu.Unlock()
		if sick[p.Name] {
			return testnode.NotReady
		}
		return testnode.Ready
	}
	e.agent.SetFate(fate)
	e.run(t, "create", "pdb", "web", "--selector=app=web", "--min-available=2")
	status := func() [3]int32 {
		p := e.pdb(t)
		return [3]int32{p.Status.CurrentHealthy, p.Status.DesiredHealthy, p.Status.DisruptionsAllowed}
	}
	testnode.Eventually(t, 30*time.Second, func() bool { return status() == [3]int32{2, 2, 0} }, "2 healthy of 2 desired: %v", status())

	out, err := e.evict(t, names[1], eviction(names[1], ""))
	require.Error(t, err, "a ready pod needs a disruption: %s", out)
	assert.Contains(t, out, "Cannot evict pod as it would violate the pod's disruption budget.")
	out, err = e.evict(t, names[0], eviction(names[0], ""))
	require.NoError(t, err, "an unready pod goes while the budget is healthy: %s", out)
	assert.Empty(t, e.pdb(t).Status.DisruptedPods, "no disruption was taken")
	testnode.Eventually(t, 30*time.Second, func() bool { return status() == [3]int32{3, 2, 1} }, "replaced: %v", status())

	// Now one unready pod while the budget is short.
	mu.Lock()
	sick[names[1]] = true
	mu.Unlock()
	e.agent.SetFate(fate) // revisits every pod
	e.run(t, "patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"minAvailable":3}}`)
	testnode.Eventually(t, 30*time.Second, func() bool { return status() == [3]int32{2, 3, 0} }, "2 healthy of 3 desired: %v", status())
	out, err = e.evict(t, names[1], eviction(names[1], ""))
	require.Error(t, err, "IfHealthyBudget keeps an unready pod while the budget is short: %s", out)
	assert.Contains(t, out, "TooManyRequests")
	e.run(t, "patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}`)
	testnode.Eventually(t, 30*time.Second, func() bool { p := e.pdb(t); return p.Status.ObservedGeneration == p.Generation }, "observed")
	out, err = e.evict(t, names[1], eviction(names[1], ""))
	require.NoError(t, err, "AlwaysAllow evicts an unready pod: %s", out)
}
