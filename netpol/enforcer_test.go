package netpol_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/authz"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/internal/testnode"
	"github.com/orkit/orkit/netpol"
)

// fakeRunner records scripts and fails when told to.
type fakeRunner struct {
	mu      sync.Mutex
	scripts []string
	fail    int
}

func (f *fakeRunner) Apply(_ context.Context, script string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripts = append(f.scripts, script)
	if f.fail > 0 {
		f.fail--
		return errors.New("boom")
	}
	return nil
}

func (f *fakeRunner) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.scripts) == 0 {
		return ""
	}
	return f.scripts[len(f.scripts)-1]
}

// TestEnforcerFollowsChanges runs an enforcer as its own user (the
// bootstrap role lets it read what it needs) against a real API server:
// a policy and a running pod give the pod a chain, a failed apply is
// retried, deleting the policy empties the table, and a clean exit
// removes it.
func TestEnforcerFollowsChanges(t *testing.T) {
	cl := testnode.StartCluster(t)
	kc := filepath.Join(t.TempDir(), "netpol.kubeconfig")
	require.NoError(t, cl.CP.WriteKubeconfig(kc, authz.NetworkPolicyAgentUser))
	admin := cl.Client(t, cl.AdminKubeconfig)
	fr := &fakeRunner{}
	e, err := netpol.New(netpol.Config{Client: cl.Client(t, kc), Runner: fr, MinSyncInterval: time.Millisecond,
		SkipBridgeCheck: true, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	testnode.Eventually(t, 30*time.Second, func() bool { return e.Syncs() >= 1 }, "first sync")
	assert.Equal(t, netpol.DeleteScript(""), fr.scripts[0], "a table a previous run left goes first")
	assert.NotContains(t, fr.last(), "add element", "no policy isolates nothing")

	p, err := client.For[core.Pod](admin, "default").Create(ctx, &core.Pod{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default",
		Labels: map[string]string{"app": "web"}}, Spec: core.PodSpec{NodeName: "n1", Containers: []core.Container{{Name: "c", Image: "i"}}}})
	require.NoError(t, err)
	p.Status = core.PodStatus{Phase: core.PodRunning, PodIP: "10.244.0.7"}
	_, err = client.For[core.Pod](admin, "default").UpdateStatus(ctx, p)
	require.NoError(t, err)
	fr.mu.Lock()
	fr.fail = 1
	fr.mu.Unlock()
	_, err = client.For[networking.NetworkPolicy](admin, "default").Create(ctx, &networking.NetworkPolicy{
		ObjectMeta: meta.ObjectMeta{Name: "deny", Namespace: "default"}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool {
		return strings.Contains(fr.last(), "add element ip orkit-netpol ingress-pods { 10.244.0.7 : jump in-") && e.Err() == nil
	}, "the pod isolated after a failed apply")

	require.NoError(t, client.For[networking.NetworkPolicy](admin, "default").Delete(ctx, "deny", nil))
	testnode.Eventually(t, 30*time.Second, func() bool { return !strings.Contains(fr.last(), "add element") }, "policy gone, pod open")

	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, netpol.DeleteScript(""), fr.last(), "a clean exit removes the table")
}

// TestNetworkPolicyAPI: the API server defaults and validates policies as
// kube-apiserver does, and refuses a bad one with its message.
func TestNetworkPolicyAPI(t *testing.T) {
	cl := testnode.StartCluster(t)
	nps := client.For[networking.NetworkPolicy](cl.Client(t, cl.AdminKubeconfig), "default")
	ctx := context.Background()
	got, err := nps.Create(ctx, &networking.NetworkPolicy{ObjectMeta: meta.ObjectMeta{Name: "egress", Namespace: "default"},
		Spec: networking.NetworkPolicySpec{Egress: []networking.NetworkPolicyEgressRule{{Ports: []networking.NetworkPolicyPort{{}}}}}})
	require.NoError(t, err)
	assert.Equal(t, []networking.PolicyType{networking.PolicyTypeIngress, networking.PolicyTypeEgress}, got.Spec.PolicyTypes)
	assert.Equal(t, core.ProtocolTCP, *got.Spec.Egress[0].Ports[0].Protocol)
	assert.Equal(t, int64(1), got.Generation)

	endPort := int32(10)
	_, err = nps.Create(ctx, &networking.NetworkPolicy{ObjectMeta: meta.ObjectMeta{Name: "bad", Namespace: "default"},
		Spec: networking.NetworkPolicySpec{Ingress: []networking.NetworkPolicyIngressRule{{
			Ports: []networking.NetworkPolicyPort{{EndPort: &endPort}},
			From:  []networking.NetworkPolicyPeer{{}},
		}}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.ingress[0].ports[0].endPort: Invalid value: 10: may not be specified when `port` is not specified")
	assert.Contains(t, err.Error(), "spec.ingress[0].from[0]: Required value: must specify a peer")
	_, err = nps.Get(ctx, "bad")
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

func TestNewErrors(t *testing.T) {
	_, err := netpol.New(netpol.Config{})
	assert.ErrorIs(t, err, netpol.ErrInvalidConfig)
}
