package controller_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/informer/workqueue"
)

// staticLW lists fixed ConfigMaps and watches nothing (the watch ends
// with ctx), standing in for an API server.
type staticLW []*core.ConfigMap

func (s staticLW) List(context.Context, informer.ListOptions) ([]*core.ConfigMap, string, string, error) {
	return s, "1", "", nil
}

func (s staticLW) Watch(ctx context.Context, _ informer.ListOptions) (<-chan informer.Event[*core.ConfigMap], error) {
	ch := make(chan informer.Event[*core.ConfigMap])
	go func() { <-ctx.Done(); close(ch) }()
	return ch, nil
}

func ExampleNew() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf := informer.New[*core.ConfigMap](staticLW{
		{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "settings", ResourceVersion: "1"}},
		{ObjectMeta: meta.ObjectMeta{Namespace: "web", Name: "routes", ResourceVersion: "1"}},
	}, informer.Config[*core.ConfigMap]{})
	go func() { _ = inf.Run(ctx) }()

	seen := make(chan controller.Request)
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		cm, err := inf.Lister().Namespace(req.Namespace).Get(req.Name) // read the cache, not the event
		if errors.Is(err, informer.ErrNotFound) {
			return controller.Result{}, nil // gone: nothing to do
		}
		if err != nil {
			return controller.Result{}, err
		}
		_ = cm // ... drive the world towards cm ...
		seen <- req
		return controller.Result{}, nil
	})
	c, err := controller.New("configmap-printer", r, controller.Config{Workers: 2})
	if err != nil {
		panic(err)
	}
	controller.WatchObjects(c, inf)
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()

	got := []string{(<-seen).String(), (<-seen).String()}
	slices.Sort(got)
	fmt.Println(got)
	cancel()
	fmt.Println("Run returned", <-done)
	// Output:
	// [default/settings web/routes]
	// Run returned <nil>
}

func ExampleTerminalError() {
	err := fmt.Errorf("sync web/routes: %w", controller.TerminalError(errors.New("spec.port: must be 1-65535")))
	fmt.Println(controller.IsTerminal(err))
	fmt.Println(controller.IsTerminal(errors.New("connection refused")))
	// Output:
	// true
	// false
}

func ExampleReconcilerFunc() {
	var r controller.Reconciler = controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
		fmt.Println("reconciling", req)
		return controller.Result{RequeueAfter: time.Minute}, nil // check again in a minute
	})
	res, err := r.Reconcile(context.Background(), controller.Request{Namespace: "default", Name: "web"})
	fmt.Println(res.RequeueAfter, err)
	// Output:
	// reconciling default/web
	// 1m0s <nil>
}

func ExampleEnqueueOwner() {
	yes := true
	pod := &core.Pod{ObjectMeta: meta.ObjectMeta{Namespace: "default", Name: "web-7c9d-x2x4q",
		OwnerReferences: []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7c9d", Controller: &yes}}}}
	toReplicaSet := controller.EnqueueOwner[*core.Pod](controller.OwnerKind{Group: "apps", Kind: "ReplicaSet"})
	toDeployment := controller.EnqueueOwner[*core.Pod](controller.OwnerKind{Group: "apps", Kind: "Deployment"})
	fmt.Println(toReplicaSet(pod), toDeployment(pod))
	// Output:
	// [default/web-7c9d] []
}

func ExampleExpectations() {
	clock := workqueue.NewFakeClock(time.Unix(0, 0))
	exp := controller.NewExpectations(clock, 5*time.Minute)
	rs := controller.Request{Namespace: "default", Name: "web-7c9d"}

	exp.ExpectCreations(rs, 3) // about to create three pods
	fmt.Println(exp.Satisfied(rs))
	exp.CreationObserved(rs) // the pod informer's add handler, once per pod
	exp.CreationObserved(rs)
	exp.CreationObserved(rs)
	fmt.Println(exp.Satisfied(rs))

	exp.ExpectDeletions(rs, 1)
	clock.Step(6 * time.Minute) // the deletion was never seen: give up waiting
	fmt.Println(exp.Satisfied(rs))
	// Output:
	// false
	// true
	// true
}

// A Manager wires a client, shared informers, leader election and
// controllers; run it until the process is told to stop.
func ExampleManager() {
	cfg, err := client.ConfigFromKubeconfig(os.Getenv("KUBECONFIG"), "")
	if err != nil {
		panic(err)
	}
	c, err := client.New(cfg)
	if err != nil {
		panic(err)
	}
	host, _ := os.Hostname()
	m, err := controller.NewManager(controller.ManagerConfig{Client: c, LeaderElection: &controller.LeaderElectionConfig{
		Namespace: "kube-system", Name: "my-controller-manager", Identity: host,
	}})
	if err != nil {
		panic(err)
	}
	pods, err := controller.InformerFor[core.Pod](m, "")
	if err != nil {
		panic(err)
	}
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		pod, err := pods.Lister().Namespace(req.Namespace).Get(req.Name)
		if err != nil {
			return controller.Result{}, nil // deleted
		}
		slog.Info("pod", "name", pod.Name, "phase", pod.Status.Phase)
		return controller.Result{}, nil
	})
	ctl, err := controller.New("pod-logger", r, controller.Config{})
	if err != nil {
		panic(err)
	}
	controller.WatchObjects(ctl, pods)
	if err := m.Add(ctl); err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background()) // signal.NotifyContext in a real program
	defer stop()
	if err := m.Run(ctx); err != nil {
		slog.Error("manager stopped", "err", err) // e.g. leader election lost: exit and restart
	}
}

// A LeaderElector on its own: run something in one process only.
func ExampleLeaderElector() {
	cfg, err := client.ConfigFromKubeconfig(os.Getenv("KUBECONFIG"), "")
	if err != nil {
		panic(err)
	}
	c, err := client.New(cfg)
	if err != nil {
		panic(err)
	}
	le, err := controller.NewLeaderElector(controller.LeaderElectionConfig{
		Client: c, Namespace: "kube-system", Name: "nightly-report", Identity: "worker-1",
		OnStartedLeading: func(ctx context.Context) {
			<-ctx.Done() // work while leading; return when ctx ends
		},
		OnStoppedLeading: func() { slog.Info("no longer leading") },
	})
	if err != nil {
		panic(err)
	}
	_ = le.Run(context.Background())
}
