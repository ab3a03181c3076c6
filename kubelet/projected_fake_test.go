package kubelet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/admission"
	"github.com/orkit/orkit/api/authentication"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// whoAmI asks the API server who tok is; the error is the server's.
func whoAmI(t *testing.T, tc *testCluster, tok string) (*authentication.UserInfo, error) {
	t.Helper()
	c, err := client.New(&client.Config{Host: tc.cp.URL, CAData: tc.cp.CA.CertPEM, BearerToken: tok, QPS: -1}, client.WithLogger(quietLogger()))
	require.NoError(t, err)
	r, err := client.For[authentication.SelfSubjectReview](c, "").Create(context.Background(), &authentication.SelfSubjectReview{})
	if err != nil {
		return nil, err
	}
	return &r.Status.UserInfo, nil
}

// TestFakeProjectedVolumes: the kube-api-access volume the ServiceAccount
// plugin adds gets a token bound to the pod (which stops authenticating
// once the pod is gone), ca.crt and the namespace; a general projected
// volume joins a secret, a configMap and the downward API.
func TestFakeProjectedVolumes(t *testing.T) {
	tc := startCluster(t)
	root := t.TempDir()
	tc.startFakeKubelet(t, "node-proj", func(c *Config) { c.RootDir = root })
	ctx := context.Background()
	_, err := client.For[core.ServiceAccount](tc.admin, "default").Create(ctx, &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "robot"}})
	require.NoError(t, err)
	_, err = client.For[core.ConfigMap](tc.admin, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: admission.RootCAConfigMap},
		Data: map[string]string{"ca.crt": string(tc.cp.CA.CertPEM), "other": "x"}})
	require.NoError(t, err)
	_, err = client.For[core.Secret](tc.admin, "default").Create(ctx, &core.Secret{ObjectMeta: meta.ObjectMeta{Name: "creds"},
		Data: map[string][]byte{"password": []byte("s3cret")}})
	require.NoError(t, err)

	p := simplePod("proj", "node-proj")
	p.Spec.ServiceAccountName = "robot"
	p.Spec.Volumes = []core.Volume{
		{Name: "kube-api-access-abcde", VolumeSource: core.VolumeSource{Projected: admission.TokenVolumeSource()}},
		{Name: "all-in-one", VolumeSource: core.VolumeSource{Projected: &core.ProjectedVolumeSource{Sources: []core.VolumeProjection{
			{Secret: &core.SecretProjection{LocalObjectReference: core.LocalObjectReference{Name: "creds"}}},
			{ConfigMap: &core.ConfigMapProjection{LocalObjectReference: core.LocalObjectReference{Name: admission.RootCAConfigMap},
				Items: []core.KeyToPath{{Key: "other", Path: "conf/other"}}}},
			{DownwardAPI: &core.DownwardAPIProjection{Items: []core.DownwardAPIVolumeFile{{Path: "name",
				FieldRef: &core.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}}},
			{ServiceAccountToken: &core.ServiceAccountTokenProjection{Path: "vault-token", Audience: "vault"}},
		}}}},
	}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "kube-api-access-abcde", MountPath: admission.TokenMountPath, ReadOnly: true}}
	created, err := pods(tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	waitPod(t, tc.admin, "default", "proj", 15*time.Second, "Running", running)

	dir := filepath.Join(root, "pods", string(created.UID), "volumes", pluginProjected)
	read := func(vol, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, vol, name))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, string(tc.cp.CA.CertPEM), read("kube-api-access-abcde", "ca.crt"))
	assert.Equal(t, "default", read("kube-api-access-abcde", "namespace"))
	fi, err := os.Stat(filepath.Join(dir, "kube-api-access-abcde", "token"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	assert.Equal(t, "s3cret", read("all-in-one", "password"))
	assert.Equal(t, "x", read("all-in-one", "conf/other"))
	assert.Equal(t, "proj", read("all-in-one", "name"))
	assert.NotEmpty(t, read("all-in-one", "vault-token"))
	_, err = whoAmI(t, tc, read("all-in-one", "vault-token"))
	assert.True(t, apierrors.IsUnauthorized(err), "a token for another audience: %v", err)

	tok := read("kube-api-access-abcde", "token")
	who, err := whoAmI(t, tc, tok)
	require.NoError(t, err)
	assert.Equal(t, "system:serviceaccount:default:robot", who.Username)
	assert.Equal(t, authentication.ExtraValue{"proj"}, who.Extra["authentication.kubernetes.io/pod-name"])
	assert.Equal(t, authentication.ExtraValue{"node-proj"}, who.Extra["authentication.kubernetes.io/node-name"])

	require.NoError(t, pods(tc.admin, "default").Delete(ctx, "proj", nil))
	waitFor(t, 15*time.Second, "pod gone", func() bool {
		_, err := pods(tc.admin, "default").Get(ctx, "proj")
		return apierrors.IsNotFound(err)
	})
	_, err = whoAmI(t, tc, tok)
	assert.True(t, apierrors.IsUnauthorized(err), "the deleted pod's token: %v", err)
}

// TestRealKubeletServiceAccountToken: on a real node the container reads
// the kube-api-access volume where in-cluster clients look for it, and
// the token it reads authenticates as its account, bound to the pod.
func TestRealKubeletServiceAccountToken(t *testing.T) {
	n := newRealNode(t, "real-sa-node")
	ctx := context.Background()
	_, err := client.For[core.ServiceAccount](n.tc.admin, "default").Create(ctx, &core.ServiceAccount{ObjectMeta: meta.ObjectMeta{Name: "robot"}})
	require.NoError(t, err)
	_, err = client.For[core.ConfigMap](n.tc.admin, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: admission.RootCAConfigMap},
		Data: map[string]string{"ca.crt": string(n.tc.cp.CA.CertPEM)}})
	require.NoError(t, err)
	p := helloPod("sa", "real-sa-node")
	p.Spec.ServiceAccountName = "robot"
	p.Spec.Volumes = []core.Volume{{Name: "kube-api-access-xyz12", VolumeSource: core.VolumeSource{Projected: admission.TokenVolumeSource()}}}
	p.Spec.Containers[0].VolumeMounts = []core.VolumeMount{{Name: "kube-api-access-xyz12", MountPath: admission.TokenMountPath, ReadOnly: true}}
	created, err := pods(n.tc.admin, "default").Create(ctx, p)
	require.NoError(t, err)
	got := waitPod(t, n.tc.admin, "default", "sa", 60*time.Second, "Running", func(p *core.Pod) bool { return running(p) && isReady(p) })

	assert.Equal(t, "default", n.exec(t, got, "app", "/hello", "cat", admission.TokenMountPath+"/namespace"))
	assert.Equal(t, string(n.tc.cp.CA.CertPEM), n.exec(t, got, "app", "/hello", "cat", admission.TokenMountPath+"/ca.crt"))
	tok := n.exec(t, got, "app", "/hello", "cat", admission.TokenMountPath+"/token")
	assert.True(t, isMountPoint(filepath.Join(n.cfg.RootDir, "pods", string(created.UID), "volumes", pluginProjected, "kube-api-access-xyz12")),
		"the token volume is a tmpfs")
	who, err := whoAmI(t, n.tc, tok)
	require.NoError(t, err)
	assert.Equal(t, "system:serviceaccount:default:robot", who.Username)
	assert.Equal(t, authentication.ExtraValue{"sa"}, who.Extra["authentication.kubernetes.io/pod-name"])
	assert.Equal(t, authentication.ExtraValue{string(created.UID)}, who.Extra["authentication.kubernetes.io/pod-uid"])
}
