package standard_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/localpath"
	"github.com/orkit/orkit/controller/rootcacert"
	"github.com/orkit/orkit/controller/servicelb"
	"github.com/orkit/orkit/controller/standard"
	"github.com/orkit/orkit/internal/testnode"
)

func TestAddRejects(t *testing.T) {
	_, err := standard.Add(nil, standard.Config{})
	assert.ErrorIs(t, err, standard.ErrInvalidConfig)
	cl := testnode.StartCluster(t)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	_, err = standard.Add(m, standard.Config{Disabled: []string{"replicaset", "no-such-controller"}})
	assert.ErrorIs(t, err, standard.ErrInvalidConfig)
	_, err = standard.Add(m, standard.Config{NodeIPAM: nodeipamBadMask()})
	assert.ErrorContains(t, err, "controller nodeipam: ", "a controller's error names it")
}

// TestAddRunsTheStandardSet: one call makes every standard controller on
// the manager; they share its informers and run while it leads.
func TestAddRunsTheStandardSet(t *testing.T) {
	cl := testnode.StartCluster(t)
	admin := cl.Client(t, cl.AdminKubeconfig)
	testnode.RunAgent(t, admin, testnode.Config{Nodes: 2, Bind: true})
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	lb, err := servicelb.NewLoopback(mustPrefix("127.0.100.0/24"))
	require.NoError(t, err)
	got, err := standard.Add(m, standard.Config{ServiceLB: servicelb.Config{Provider: lb}, Disabled: []string{"podgc"},
		LocalPath:  localpath.Config{BaseDir: t.TempDir()},
		RootCACert: rootcacert.Config{RootCA: cl.CP.CA.CertPEM}})
	require.NoError(t, err)
	assert.Nil(t, got.PodGC, "disabled")
	for name, c := range map[string]any{"replicaset": got.ReplicaSet, "deployment": got.Deployment, "statefulset": got.StatefulSet,
		"daemonset": got.DaemonSet, "job": got.Job, "cronjob": got.CronJob, "disruption": got.Disruption, "endpoints": got.Endpoints,
		"endpointslice": got.EndpointSlice, "endpointslicemirroring": got.Mirroring,
		"namespace": got.Namespace, "serviceaccount": got.ServiceAccount, "root-ca-cert-publisher": got.RootCACert, "clusterrole-aggregation": got.ClusterRoleAgg, "nodeipam": got.NodeIPAM, "servicelb": got.ServiceLB,
		"volumebinding": got.VolumeBinding, "localpath": got.LocalPath, "nodelifecycle": got.NodeLifecycle, "garbagecollector": got.GarbageCollector} {
		assert.NotNil(t, c, name)
	}
	testnode.RunManager(t, m)

	ctx := context.Background()
	replicas := int32(2)
	labels := map[string]string{"app": "web"}
	_, err = client.For[apps.Deployment](admin, "default").Create(ctx, &apps.Deployment{ObjectMeta: meta.ObjectMeta{Name: "web"},
		Spec: apps.DeploymentSpec{Replicas: &replicas, Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec: core.PodSpec{Containers: []core.Container{{Name: "web", Image: "orkit.local/hello:v1"}}}}}})
	require.NoError(t, err)
	testnode.Eventually(t, time.Minute, func() bool {
		d, err := client.For[apps.Deployment](admin, "default").Get(ctx, "web")
		return err == nil && d.Status.AvailableReplicas == replicas
	}, "the deployment's pods are available")
	_, err = client.For[core.Namespace](admin, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	testnode.Eventually(t, time.Minute, func() bool {
		_, err := client.For[core.ServiceAccount](admin, "team").Get(ctx, "default")
		return err == nil
	}, "the new namespace's default service account")
	testnode.Eventually(t, time.Minute, func() bool {
		_, err := client.For[core.ConfigMap](admin, "team").Get(ctx, rootcacert.ConfigMapName)
		return err == nil
	}, "the new namespace's kube-root-ca.crt")
	testnode.Eventually(t, time.Minute, func() bool {
		nodes, err := client.For[core.Node](admin, "").List(ctx, client.ListOptions{})
		return err == nil && len(nodes.Items) == 2 && nodes.Items[0].Spec.PodCIDR != "" && nodes.Items[1].Spec.PodCIDR != ""
	}, "node IPAM gave the nodes pod CIDRs")
}
