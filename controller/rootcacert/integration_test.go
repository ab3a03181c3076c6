package rootcacert_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/rootcacert"
	"github.com/orkit/orkit/internal/testnode"
)

// TestPublishRootCA: existing and new namespaces get kube-root-ca.crt
// with the CA bundle; a deleted one comes back, an edited one is put
// back.
func TestPublishRootCA(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ca := cl.CP.CA.CertPEM
	pc, err := rootcacert.New(m, rootcacert.Config{RootCA: ca, Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(pc))
	testnode.RunManager(t, m)
	ctx := context.Background()
	published := func(ns string) func() bool {
		return func() bool {
			cm, err := client.For[core.ConfigMap](c, ns).Get(ctx, rootcacert.ConfigMapName)
			return err == nil && cm.Data[rootcacert.Key] == string(ca) && cm.Annotations[rootcacert.DescriptionAnnotation] == rootcacert.Description
		}
	}
	testnode.Eventually(t, 30*time.Second, published("default"), "default/kube-root-ca.crt")
	testnode.Eventually(t, 30*time.Second, published("kube-system"), "kube-system/kube-root-ca.crt")

	_, err = client.For[core.Namespace](c, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, published("team"), "team/kube-root-ca.crt")

	cms := client.For[core.ConfigMap](c, "team")
	require.NoError(t, cms.Delete(ctx, rootcacert.ConfigMapName, nil))
	testnode.Eventually(t, 30*time.Second, published("team"), "recreated after deletion")

	cm, err := cms.Get(ctx, rootcacert.ConfigMapName)
	require.NoError(t, err)
	cm.Data = map[string]string{rootcacert.Key: "not a CA", "extra": "x"}
	_, err = cms.Update(ctx, cm)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, published("team"), "put back after an edit")
	cm, err = cms.Get(ctx, rootcacert.ConfigMapName)
	require.NoError(t, err)
	assert.Len(t, cm.Data, 1, "only ca.crt")
}

func TestNewErrors(t *testing.T) {
	_, err := rootcacert.New(nil, rootcacert.Config{RootCA: []byte("x")})
	require.ErrorIs(t, err, rootcacert.ErrInvalidConfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: &client.Client{}})
	require.NoError(t, err)
	_, err = rootcacert.New(m, rootcacert.Config{})
	require.ErrorIs(t, err, rootcacert.ErrInvalidConfig)
}
