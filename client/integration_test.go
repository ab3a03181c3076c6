package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controlplane"
	"github.com/orkit/orkit/internal/testkubelet"
)

// testCluster is a real control plane for one test, with an admin client.
type testCluster struct {
	cp    *controlplane.ControlPlane
	dir   string
	admin *client.Client
}

const adminToken = "admin-token-123"

func startCluster(t *testing.T) *testCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an API server")
	}
	dir := t.TempDir()
	tokens := writeTestFile(t, filepath.Join(dir, "tokens.csv"), adminToken+",tok-admin,1001,\"system:masters\"\n")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cp, err := controlplane.Start(ctx, controlplane.Config{DataDir: dir, Listen: addr, Auth: controlplane.AuthConfig{TokenFile: tokens}})
	require.NoError(t, err)
	cfg, err := client.ConfigFromKubeconfig(cp.AdminKubeconfig, "")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	return &testCluster{cp: cp, dir: dir, admin: c}
}

func int32p(i int32) *int32 { return &i }

func testPod(name string) *core.Pod {
	return &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}},
	}
}

func testDeployment(name string, replicas int32) *apps.Deployment {
	labels := map[string]string{"app": name}
	return &apps.Deployment{
		ObjectMeta: meta.ObjectMeta{Name: name},
		Spec: apps.DeploymentSpec{
			Replicas: int32p(replicas),
			Selector: &meta.LabelSelector{MatchLabels: labels},
			Template: core.PodTemplateSpec{
				ObjectMeta: meta.ObjectMeta{Labels: labels},
				Spec:       core.PodSpec{Containers: []core.Container{{Name: "c", Image: "orkit.local/hello:v1"}}},
			},
		},
	}
}

func TestIntegration(t *testing.T) {
	tc := startCluster(t)
	t.Run("HTTP2", func(t *testing.T) { testHTTP2(t, tc) })
	t.Run("ConfigMapCRUD", func(t *testing.T) { testConfigMapCRUD(t, tc) })
	t.Run("ListPaging", func(t *testing.T) { testListPaging(t, tc) })
	t.Run("ClusterScoped", func(t *testing.T) { testClusterScoped(t, tc) })
	t.Run("PodBindAndStatus", func(t *testing.T) { testPodBindAndStatus(t, tc) })
	t.Run("Scale", func(t *testing.T) { testScale(t, tc) })
	t.Run("Watch", func(t *testing.T) { testWatch(t, tc) })
	t.Run("Logs", func(t *testing.T) { testLogs(t, tc) })
	t.Run("Dynamic", func(t *testing.T) { testDynamic(t, tc) })
	t.Run("Discovery", func(t *testing.T) { testRealDiscovery(t, tc) })
	t.Run("ValidationParity", func(t *testing.T) { testValidationParity(t, tc) })
	t.Run("Tokens", func(t *testing.T) { testTokens(t, tc) })
}

func testHTTP2(t *testing.T, tc *testCluster) {
	req, err := http.NewRequest("GET", tc.cp.URL+"/version", nil)
	require.NoError(t, err)
	resp, err := client.HTTPClientOf(tc.admin).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, 2, resp.ProtoMajor, "the client negotiates HTTP/2 over TLS")
}

func testConfigMapCRUD(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	cms := client.For[core.ConfigMap](tc.admin, "default")
	in := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "crud", Labels: map[string]string{"t": "crud"}}, Data: map[string]string{"a": "1"}}
	created, err := cms.Create(ctx, in)
	require.NoError(t, err)
	assert.Empty(t, in.Kind, "the caller's object is not modified")
	assert.Equal(t, "default", created.Namespace)
	assert.NotEmpty(t, created.UID)

	_, err = cms.Create(ctx, in)
	assert.True(t, apierrors.IsAlreadyExists(err), "%v", err)

	got, err := cms.Get(ctx, "crud")
	require.NoError(t, err)
	assert.Equal(t, "1", got.Data["a"])

	got.Data["a"] = "2"
	updated, err := cms.Update(ctx, got)
	require.NoError(t, err)
	assert.NotEqual(t, got.ResourceVersion, updated.ResourceVersion)

	got.Data["a"] = "stale"
	_, err = cms.Update(ctx, got)
	assert.True(t, apierrors.IsConflict(err), "a stale resourceVersion conflicts: %v", err)

	patched, err := cms.Patch(ctx, "crud", client.MergePatchType, []byte(`{"data":{"b":"3"}}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "2", "b": "3"}, patched.Data)
	patched, err = cms.Patch(ctx, "crud", client.JSONPatchType, []byte(`[{"op":"replace","path":"/data/b","value":"4"}]`))
	require.NoError(t, err)
	assert.Equal(t, "4", patched.Data["b"])
	_, err = cms.Patch(ctx, "crud", client.MergePatchType, []byte(`{not json`))
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)

	l, err := cms.List(ctx, client.ListOptions{LabelSelector: "t=crud"})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.NotEmpty(t, l.ResourceVersion)

	require.NoError(t, cms.Delete(ctx, "crud", nil))
	_, err = cms.Get(ctx, "crud")
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	err = cms.Delete(ctx, "crud", nil)
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	var st *meta.Status
	require.True(t, errors.As(err, &st))
	assert.Equal(t, `configmaps "crud" not found`, st.Message)
}

func testListPaging(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	cms := client.For[core.ConfigMap](tc.admin, "default")
	for i := range 5 {
		_, err := cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprintf("page-%d", i), Labels: map[string]string{"t": "page"}}})
		require.NoError(t, err)
	}
	var names []string
	opts := client.ListOptions{LabelSelector: "t=page", Limit: 2}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		l, err := cms.List(ctx, opts)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(l.Items), 2)
		for _, cm := range l.Items {
			names = append(names, cm.Name)
		}
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	assert.Equal(t, []string{"page-0", "page-1", "page-2", "page-3", "page-4"}, names)

	l, err := cms.List(ctx, client.ListOptions{FieldSelector: "metadata.name=page-3"})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)

	require.NoError(t, cms.DeleteCollection(ctx, nil, client.ListOptions{LabelSelector: "t=page"}))
	l, err = cms.List(ctx, client.ListOptions{LabelSelector: "t=page"})
	require.NoError(t, err)
	assert.Empty(t, l.Items)
	_, err = cms.List(ctx, client.ListOptions{LabelSelector: "a in (("})
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)
}

func testClusterScoped(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	nss := client.For[core.Namespace](tc.admin, "ignored-for-cluster-scope")
	_, err := nss.Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "team-a"}})
	require.NoError(t, err)
	ns, err := nss.Get(ctx, "team-a")
	require.NoError(t, err)
	assert.Equal(t, "team-a", ns.Name)
	cms := client.For[core.ConfigMap](tc.admin, "team-a")
	_, err = cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "x"}})
	require.NoError(t, err)
	all, err := client.For[core.ConfigMap](tc.admin, "").List(ctx, client.ListOptions{FieldSelector: "metadata.namespace=team-a"})
	require.NoError(t, err)
	require.NotEmpty(t, all.Items)
	assert.Equal(t, "team-a", all.Items[0].Namespace)
}

func testPodBindAndStatus(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	pods := client.For[core.Pod](tc.admin, "default")
	pod, err := pods.Create(ctx, testPod("bind-me"))
	require.NoError(t, err)
	assert.Equal(t, core.RestartPolicyAlways, pod.Spec.RestartPolicy, "the server defaulted it")

	b := &core.Binding{ObjectMeta: meta.ObjectMeta{Name: "bind-me", Namespace: "default"}, Target: core.ObjectReference{Kind: "Node", Name: "node-1"}}
	require.NoError(t, tc.admin.Bind(ctx, b))
	pod, err = pods.Get(ctx, "bind-me")
	require.NoError(t, err)
	assert.Equal(t, "node-1", pod.Spec.NodeName)
	err = tc.admin.Bind(ctx, b)
	assert.True(t, apierrors.IsConflict(err), "already bound: %v", err)

	pod.Status.Phase = core.PodRunning
	pod.Spec.ActiveDeadlineSeconds = nil
	out, err := pods.UpdateStatus(ctx, pod)
	require.NoError(t, err)
	assert.Equal(t, core.PodRunning, out.Status.Phase)
	l, err := pods.List(ctx, client.ListOptions{FieldSelector: "spec.nodeName=node-1,status.phase=Running"})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
}

func testScale(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	deps := client.For[apps.Deployment](tc.admin, "default")
	_, err := deps.Create(ctx, testDeployment("web", 2))
	require.NoError(t, err)
	sc, err := deps.Scale(ctx, "web")
	require.NoError(t, err)
	assert.Equal(t, int32(2), sc.Spec.Replicas)
	assert.Equal(t, "app=web", sc.Status.Selector)
	sc.Spec.Replicas = 5
	sc, err = deps.UpdateScale(ctx, "web", sc)
	require.NoError(t, err)
	assert.Equal(t, int32(5), sc.Spec.Replicas)
	d, err := deps.Get(ctx, "web")
	require.NoError(t, err)
	assert.Equal(t, int32(5), *d.Spec.Replicas)
	_, err = client.For[core.ConfigMap](tc.admin, "default").Scale(ctx, "web")
	assert.True(t, apierrors.IsNotFound(err), "configmaps have no scale: %v", err)
}

func testWatch(t *testing.T, tc *testCluster) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cms := client.For[core.ConfigMap](tc.admin, "default")
	// resourceVersion "0" lists from the watch cache, whose revision a watch
	// can start from (a list from storage may be ahead of the configmaps
	// cache: the server then answers 504 "Too large resource version").
	l, err := cms.List(ctx, client.ListOptions{ResourceVersion: "0"})
	require.NoError(t, err)
	ch, err := cms.Watch(ctx, client.ListOptions{ResourceVersion: l.ResourceVersion, LabelSelector: "t=watch"})
	require.NoError(t, err)

	cm, err := cms.Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "w", Labels: map[string]string{"t": "watch"}}})
	require.NoError(t, err)
	cm.Data = map[string]string{"x": "y"}
	_, err = cms.Update(ctx, cm)
	require.NoError(t, err)
	require.NoError(t, cms.Delete(ctx, "w", nil))

	var rvs []string
	for _, want := range []string{meta.Added, meta.Modified, meta.Deleted} {
		ev, ok := recvEvent(t, ch)
		require.True(t, ok)
		require.NoError(t, ev.Err)
		assert.Equal(t, want, ev.Type)
		assert.Equal(t, "w", ev.Object.Name)
		rvs = append(rvs, ev.Object.ResourceVersion)
	}
	assert.Len(t, rvs, 3)
	cancel()
	for {
		if _, ok := recvEvent(t, ch); !ok {
			break
		}
	}
	_, err = cms.Watch(context.Background(), client.ListOptions{ResourceVersion: "not-a-number"})
	assert.True(t, apierrors.IsBadRequest(err), "%v", err)
}

func testLogs(t *testing.T, tc *testCluster) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	next := make(chan struct{})
	// node-1's kubelet endpoint: /containerLogs/<ns>/<pod>/<container>.
	k := testkubelet.Start(t, tc.cp.CA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(r.URL.Path, "/")
		opts, err := core.ParsePodLogOptions(r.URL.Query())
		if len(parts) != 5 || parts[1] != "containerLogs" || err != nil {
			http.Error(w, fmt.Sprintf("unexpected request %s: %v", r.URL, err), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "hello from %s/%s\n", parts[3], parts[4])
		w.(http.Flusher).Flush()
		if !opts.Follow {
			return
		}
		select {
		case <-next:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintln(w, "second line")
	}))
	require.NoError(t, k.Register(ctx, tc.admin, "node-1"))
	pods := client.For[core.Pod](tc.admin, "default")
	_, err := pods.Create(ctx, testPod("logs"))
	require.NoError(t, err)
	require.NoError(t, tc.admin.Bind(ctx, &core.Binding{ObjectMeta: meta.ObjectMeta{Name: "logs", Namespace: "default"}, Target: core.ObjectReference{Name: "node-1"}}))

	rc, err := tc.admin.GetLogs(ctx, "default", "logs", client.LogOptions{})
	require.NoError(t, err)
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	rc.Close()
	assert.Equal(t, "hello from logs/c\n", string(b))

	rc, err = tc.admin.GetLogs(ctx, "default", "logs", client.LogOptions{Follow: true, Container: "c"})
	require.NoError(t, err)
	defer rc.Close()
	br := bufio.NewReader(rc)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "hello from logs/c\n", line, "the first line arrives before the stream ends")
	close(next)
	line, err = br.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "second line\n", line)

	_, err = tc.admin.GetLogs(ctx, "default", "nope", client.LogOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

func testDynamic(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	d, err := tc.admin.DynamicResource(ctx, "cm", "default")
	require.NoError(t, err)
	assert.Equal(t, meta.GroupVersionResource{Version: "v1", Resource: "configmaps"}, d.GroupVersionResource())
	u := &client.Unstructured{ObjectMeta: meta.ObjectMeta{Name: "dyn"}}
	require.NoError(t, u.SetField("v", "data", "k"))
	out, err := d.Create(ctx, u)
	require.NoError(t, err)
	assert.Equal(t, "ConfigMap", out.Kind)
	v, ok := out.Field("data", "k")
	assert.True(t, ok)
	assert.Equal(t, "v", v)

	l, err := d.List(ctx, client.ListOptions{FieldSelector: "metadata.name=dyn"})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	assert.NotEmpty(t, l.Items[0].UID)

	typed, err := client.For[core.ConfigMap](tc.admin, "default").Get(ctx, "dyn")
	require.NoError(t, err)
	assert.Equal(t, "v", typed.Data["k"])

	bad := &client.Unstructured{ObjectMeta: meta.ObjectMeta{Name: "Bad_Name"}}
	_, err = d.Create(ctx, bad)
	var verr *client.ValidationError
	assert.True(t, errors.As(err, &verr), "registered kinds are validated client-side: %v", err)

	deps, err := tc.admin.DynamicResource(ctx, "deployments.apps", "default")
	require.NoError(t, err)
	dl, err := deps.List(ctx, client.ListOptions{})
	require.NoError(t, err)
	for _, item := range dl.Items {
		_, ok := item.Field("spec", "template")
		assert.True(t, ok)
	}
	require.NoError(t, d.Delete(ctx, "dyn", nil))
}

func testRealDiscovery(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg, err := client.ConfigFromKubeconfig(tc.cp.AdminKubeconfig, "")
	require.NoError(t, err)
	c, err := client.New(cfg, client.WithDiscoveryCache(dir, time.Hour))
	require.NoError(t, err)
	for in, want := range map[string]meta.GroupVersionResource{
		"po":                              {Version: "v1", Resource: "pods"},
		"deploy":                          {Group: "apps", Version: "v1", Resource: "deployments"},
		"ns":                              {Version: "v1", Resource: "namespaces"},
		"roles.rbac.authorization.k8s.io": {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	} {
		m, err := c.RESTMapper().ForResource(ctx, in)
		require.NoError(t, err, in)
		assert.Equal(t, want, m.Resource, in)
	}
	m, err := c.RESTMapper().ForKind(ctx, meta.GroupVersionKind{Group: "apps", Kind: "StatefulSet"})
	require.NoError(t, err)
	assert.Equal(t, "statefulsets", m.Resource.Resource)
	assert.True(t, m.Namespaced)
	host := client.HostDir(strings.TrimPrefix(tc.cp.URL, "https://"))
	assert.FileExists(t, filepath.Join(dir, host, "apps", "v1", "serverresources.json"))
}

// testValidationParity: an invalid object fails client-side with the same
// Status the server sends when client-side validation is off.
func testValidationParity(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	cfg, err := client.ConfigFromKubeconfig(tc.cp.AdminKubeconfig, "")
	require.NoError(t, err)
	raw, err := client.New(cfg, client.WithoutValidation())
	require.NoError(t, err)
	noContainers := testPod("empty")
	noContainers.Spec.Containers = nil
	badDep := testDeployment("neg", 1)
	badDep.Spec.Replicas = int32p(-1)
	badDep.Spec.Template.Labels = map[string]string{"app": "other"}
	tests := []struct {
		name   string
		create func(c *client.Client) error
	}{
		{"configmap bad key", func(c *client.Client) error {
			_, err := client.For[core.ConfigMap](c, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "ok"}, Data: map[string]string{"bad key!": "x"}})
			return err
		}},
		{"bad name", func(c *client.Client) error {
			_, err := client.For[core.ConfigMap](c, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "Not_Valid"}})
			return err
		}},
		{"pod without containers", func(c *client.Client) error {
			_, err := client.For[core.Pod](c, "default").Create(ctx, noContainers)
			return err
		}},
		{"deployment", func(c *client.Client) error {
			_, err := client.For[apps.Deployment](c, "default").Create(ctx, badDep)
			return err
		}},
		{"namespace", func(c *client.Client) error {
			_, err := client.For[core.Namespace](c, "").Create(ctx, &core.Namespace{ObjectMeta: meta.ObjectMeta{Name: "a.b"}})
			return err
		}},
		{"generateName", func(c *client.Client) error {
			_, err := client.For[core.ConfigMap](c, "default").Create(ctx, &core.ConfigMap{ObjectMeta: meta.ObjectMeta{GenerateName: "gen-"}, Data: map[string]string{"": "x"}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clientErr, serverErr := tt.create(tc.admin), tt.create(raw)
			var verr *client.ValidationError
			require.True(t, errors.As(clientErr, &verr), "client-side: %v", clientErr)
			require.False(t, errors.As(serverErr, &verr), "server-side: %v", serverErr)
			cs, ss := apierrors.FromError(clientErr), apierrors.FromError(serverErr)
			require.NotNil(t, ss, "%v", serverErr)
			assert.Equal(t, ss.Code, cs.Code)
			assert.Equal(t, ss.Reason, cs.Reason)
			if tt.name == "generateName" {
				assert.Equal(t, ss.Details.Causes, cs.Details.Causes)
				return
			}
			assert.Equal(t, ss.Message, cs.Message)
			assert.Equal(t, ss.Details, cs.Details)
		})
	}
	t.Run("update", func(t *testing.T) {
		pods := client.For[core.Pod](tc.admin, "default")
		p, err := pods.Create(ctx, testPod("upd"))
		require.NoError(t, err)
		p.Labels["bad key!"] = "x"
		_, clientErr := pods.Update(ctx, p)
		_, serverErr := client.For[core.Pod](raw, "default").Update(ctx, p)
		var verr *client.ValidationError
		require.True(t, errors.As(clientErr, &verr), "%v", clientErr)
		assert.Equal(t, apierrors.FromError(serverErr).Message, verr.Status.Message)
	})
}

func testTokens(t *testing.T, tc *testCluster) {
	ctx := context.Background()
	path := filepath.Join(tc.dir, "token.kubeconfig")
	require.NoError(t, tc.cp.WriteTokenKubeconfig(path, "tok-admin", adminToken))
	cfg, err := client.ConfigFromKubeconfig(path, "")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	_, err = client.For[core.Namespace](c, "").Get(ctx, "default")
	require.NoError(t, err)

	tokenFile := writeTestFile(t, filepath.Join(tc.dir, "tok"), "wrong-token\n")
	c, err = client.New(&client.Config{Host: tc.cp.URL, CAData: tc.cp.CA.CertPEM, BearerTokenFile: tokenFile})
	require.NoError(t, err)
	_, err = client.For[core.Namespace](c, "").Get(ctx, "default")
	assert.True(t, apierrors.IsUnauthorized(err), "%v", err)
	require.NoError(t, os.WriteFile(tokenFile, []byte(adminToken), 0o600))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(tokenFile, later, later))
	_, err = client.For[core.Namespace](c, "").Get(ctx, "default")
	require.NoError(t, err, "the new token is read")
}

func writeTestFile(t *testing.T, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func recvEvent[PT any](t *testing.T, ch <-chan client.Event[PT]) (client.Event[PT], bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
		return client.Event[PT]{}, false
	}
}
