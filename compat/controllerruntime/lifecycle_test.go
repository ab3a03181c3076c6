package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// lifecycleRounds is how many times TestEnvtestLifecycle starts and
// stops a control plane and a manager.
const lifecycleRounds = 3

// TestEnvtestLifecycle uses orkit as envtest uses kube-apiserver: each
// round starts a control plane, runs a manager that reconciles, stops
// both; after the rounds no goroutine of the control plane, the manager
// or client-go's transports is left running. The first round runs before
// the baseline is taken, so process-wide singletons (klog's flush daemon,
// client-go's caches) count as already there.
func TestEnvtestLifecycle(t *testing.T) {
	round := func(t *testing.T, i int) {
		c := cluster.Start(t, cluster.Options{})
		cfg := c.RESTConfig()
		direct, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
		require.NoError(t, err)
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
		require.NoError(t, err)
		require.NoError(t, ctrl.NewControllerManagedBy(mgr).Named(fmt.Sprint("copier-", i)).For(&corev1.ConfigMap{}).
			Owns(&corev1.Secret{}).Complete(copier{c: mgr.GetClient()}))
		stop := startManager(t, mgr)
		ctx := context.Background()
		require.NoError(t, direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "life", Namespace: "default"},
			Data: map[string]string{"round": fmt.Sprint(i)}}))
		deadline := time.Now().Add(30 * time.Second)
		for {
			var sec corev1.Secret
			err := direct.Get(ctx, types.NamespacedName{Namespace: "default", Name: "life"}, &sec)
			if err == nil {
				require.Equal(t, fmt.Sprint(i), string(sec.Data["round"]))
				break
			}
			require.False(t, time.Now().After(deadline), "round %d: not reconciled: %v", i, err)
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		require.NoError(t, c.Stop())
	}
	t.Run("warm-up", func(t *testing.T) { round(t, 0) })
	baseline := goleak.IgnoreCurrent()
	for i := 1; i <= lifecycleRounds; i++ {
		t.Run(fmt.Sprint("round-", i), func(t *testing.T) { round(t, i) })
	}
	// Connections the server closed end their client goroutines
	// asynchronously: look again until they are gone or the deadline.
	deadline := time.Now().Add(30 * time.Second)
	for goleak.Find(baseline) != nil && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	goleak.VerifyNone(t, baseline)
}
