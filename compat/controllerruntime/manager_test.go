package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/orkit/orkit/compat/internal/cluster"
)

// copier makes, for every ConfigMap labelled copy=yes, a Secret of the
// same name holding its data, owned by it.
type copier struct{ c client.Client }

func (r copier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: cm.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.c, sec, func() error {
		sec.StringData = nil
		sec.Data = map[string][]byte{}
		for k, v := range cm.Data {
			sec.Data[k] = []byte(v)
		}
		return controllerutil.SetControllerReference(&cm, sec, r.c.Scheme())
	})
	return ctrl.Result{}, err
}

// TestManagerReconciles: a controller-runtime manager with default
// client-go feature gates (its informers stream their lists) starts
// against orkit, reconciles every object that existed before it started
// and every one created after, through its cached client and an Owns
// watch.
func TestManagerReconciles(t *testing.T) {
	c := cluster.Start(t, cluster.Options{})
	direct, err := client.New(c.RESTConfig(), client.Options{Scheme: scheme.Scheme})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	create := func(i int) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Namespace: "default",
			Labels: map[string]string{"copy": "yes"}}, Data: map[string]string{"i": fmt.Sprint(i)}}
		require.NoError(t, direct.Create(ctx, cm))
	}
	for i := range 25 {
		create(i)
	}

	mgr, err := ctrl.NewManager(c.RESTConfig(), ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	require.NoError(t, err)
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).
		Complete(copier{c: mgr.GetClient()}))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	for i := 25; i < 50; i++ {
		create(i)
	}

	deadline := time.Now().Add(60 * time.Second)
	for i := range 50 {
		for {
			var sec corev1.Secret
			err := direct.Get(ctx, types.NamespacedName{Namespace: "default", Name: fmt.Sprintf("cm-%d", i)}, &sec)
			if err == nil {
				require.Equal(t, fmt.Sprint(i), string(sec.Data["i"]))
				require.Len(t, sec.OwnerReferences, 1)
				break
			}
			require.True(t, apierrors.IsNotFound(err), "%v", err)
			require.False(t, time.Now().After(deadline), "secret cm-%d was never made: the manager did not reconcile", i)
			time.Sleep(20 * time.Millisecond)
		}
	}
}
