package authz

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/authn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func om(ns, name string) meta.ObjectMeta { return meta.ObjectMeta{Namespace: ns, Name: name} }

func testRBACPolicy() *Policy {
	return &Policy{
		ClusterRoles: []*rbac.ClusterRole{
			{ObjectMeta: om("", "pod-reader"), Rules: rules(verbs("get", "list", "watch").groups("").resources("pods"))},
			{ObjectMeta: om("", "scaler"), Rules: rules(verbs("update", "patch").groups("*").resources("*/scale"))},
			{ObjectMeta: om("", "binder"), Rules: rules(verbs("create").groups("").resources("pods/binding"))},
			{ObjectMeta: om("", "pod-everything"), Rules: rules(verbs("*").groups("").resources("pods/*"))},
			{ObjectMeta: om("", "health"), Rules: rules(verbs("get").urls("/healthz", "/healthz/*", "/metrics"))},
			{ObjectMeta: om("", "one-cm"), Rules: rules(verbs("get", "update").groups("").resources("configmaps").names("app-config"))},
		},
		ClusterRoleBindings: []*rbac.ClusterRoleBinding{
			{ObjectMeta: om("", "readers"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "pod-reader"},
				Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "carol"}, {Kind: rbac.GroupKind, Name: "readers"}}},
			{ObjectMeta: om("", "sched-binder"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "binder"},
				Subjects: []rbac.Subject{{Kind: rbac.ServiceAccountKind, Namespace: "kube-system", Name: "scheduler"}}},
			{ObjectMeta: om("", "monitoring"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "health"},
				Subjects: []rbac.Subject{{Kind: rbac.GroupKind, Name: "monitors"}}},
			{ObjectMeta: om("", "dangling"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "gone"},
				Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "dave"}}},
		},
		Roles: []*rbac.Role{
			{ObjectMeta: om("dev", "deployer"), Rules: rules(verbs("create", "update").groups("apps").resources("deployments"))},
		},
		RoleBindings: []*rbac.RoleBinding{
			{ObjectMeta: om("dev", "alice-deployer"), RoleRef: rbac.RoleRef{Kind: "Role", Name: "deployer"},
				Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "alice"}}},
			{ObjectMeta: om("dev", "alice-pods"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "pod-reader"},
				Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "alice"}}},
			{ObjectMeta: om("dev", "builder-scale"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "scaler"},
				Subjects: []rbac.Subject{{Kind: rbac.ServiceAccountKind, Name: "builder"}}}, // namespace defaults to dev
			{ObjectMeta: om("dev", "pod-all"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "pod-everything"},
				Subjects: []rbac.Subject{{Kind: rbac.GroupKind, Name: "pod-admins"}}},
			{ObjectMeta: om("dev", "cm"), RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "one-cm"},
				Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "erin"}}},
		},
	}
}

func res(u *authn.User, verb, ns, group, resource, sub, name string) Attributes {
	return Attributes{User: u, Verb: verb, Namespace: ns, APIGroup: group, APIVersion: "v1",
		Resource: resource, Subresource: sub, Name: name, ResourceRequest: true}
}

func nonRes(u *authn.User, verb, path string) Attributes {
	return Attributes{User: u, Verb: verb, Path: path}
}

func TestRBAC(t *testing.T) {
	alice := &authn.User{Name: "alice"}
	carol := &authn.User{Name: "carol"}
	reader := &authn.User{Name: "rita", Groups: []string{"readers"}}
	sched := &authn.User{Name: "system:serviceaccount:kube-system:scheduler"}
	builder := &authn.User{Name: "system:serviceaccount:dev:builder"}
	otherBuilder := &authn.User{Name: "system:serviceaccount:prod:builder"}
	podAdmin := &authn.User{Name: "pa", Groups: []string{"pod-admins"}}
	monitor := &authn.User{Name: "prom", Groups: []string{"monitors"}}
	erin := &authn.User{Name: "erin"}
	dave := &authn.User{Name: "dave"}
	tests := []struct {
		name       string
		attrs      Attributes
		want       Decision
		wantReason string
	}{
		{"clusterrolebinding user", res(carol, "list", "", "", "pods", "", ""), DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to User "carol"`},
		{"clusterrolebinding group", res(reader, "get", "prod", "", "pods", "", "web"), DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "readers"`},
		{"verb not granted", res(carol, "delete", "dev", "", "pods", "", "web"), DecisionNoOpinion, ""},
		{"subresource not granted by resource", res(carol, "get", "dev", "", "pods", "log", "web"), DecisionNoOpinion, ""},
		{"role in namespace", res(alice, "create", "dev", "apps", "deployments", "", ""), DecisionAllow,
			`RBAC: allowed by RoleBinding "alice-deployer/dev" of Role "deployer" to User "alice"`},
		{"role not in other namespace", res(alice, "create", "prod", "apps", "deployments", "", ""), DecisionNoOpinion, ""},
		{"role wrong group", res(alice, "create", "dev", "extensions", "deployments", "", ""), DecisionNoOpinion, ""},
		{"clusterrole via rolebinding namespaced", res(alice, "list", "dev", "", "pods", "", ""), DecisionAllow,
			`RBAC: allowed by RoleBinding "alice-pods/dev" of ClusterRole "pod-reader" to User "alice"`},
		{"clusterrole via rolebinding not cluster-wide", res(alice, "list", "", "", "pods", "", ""), DecisionNoOpinion, ""},
		{"clusterrole via rolebinding not other ns", res(alice, "list", "prod", "", "pods", "", ""), DecisionNoOpinion, ""},
		{"service account cluster binding", res(sched, "create", "dev", "", "pods", "binding", "web"), DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "sched-binder" of ClusterRole "binder" to ServiceAccount "scheduler/kube-system"`},
		{"service account defaulted namespace, */scale", res(builder, "update", "dev", "apps", "deployments", "scale", "web"), DecisionAllow,
			`RBAC: allowed by RoleBinding "builder-scale/dev" of ClusterRole "scaler" to ServiceAccount "builder/dev"`},
		{"same SA name other namespace", res(otherBuilder, "update", "dev", "apps", "deployments", "scale", "web"), DecisionNoOpinion, ""},
		{"*/scale does not grant the resource", res(builder, "update", "dev", "apps", "deployments", "", "web"), DecisionNoOpinion, ""},
		// As in Kubernetes, "pods/*" is not a wildcard: only "*" and "*/<sub>" are.
		{"pods/* is not a subresource wildcard", res(podAdmin, "create", "dev", "", "pods", "exec", "web"), DecisionNoOpinion, ""},
		{"pods/* does not grant pods", res(podAdmin, "get", "dev", "", "pods", "", "web"), DecisionNoOpinion, ""},
		{"resourceNames match", res(erin, "get", "dev", "", "configmaps", "", "app-config"), DecisionAllow,
			`RBAC: allowed by RoleBinding "cm/dev" of ClusterRole "one-cm" to User "erin"`},
		{"resourceNames other name", res(erin, "get", "dev", "", "configmaps", "", "other"), DecisionNoOpinion, ""},
		{"resourceNames never list", res(erin, "list", "dev", "", "configmaps", "", ""), DecisionNoOpinion, ""},
		{"nonResourceURL exact", nonRes(monitor, "get", "/metrics"), DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "monitoring" of ClusterRole "health" to Group "monitors"`},
		{"nonResourceURL prefix", nonRes(monitor, "get", "/healthz/etcd"), DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "monitoring" of ClusterRole "health" to Group "monitors"`},
		{"nonResourceURL other", nonRes(monitor, "get", "/debug/pprof"), DecisionNoOpinion, ""},
		{"nonResourceURL verb", nonRes(monitor, "post", "/metrics"), DecisionNoOpinion, ""},
		{"missing role is the reason", res(dave, "get", "", "", "pods", "", "x"), DecisionNoOpinion,
			`RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found`},
		{"no user", res(nil, "get", "", "", "pods", "", "x"), DecisionNoOpinion, ""},
	}
	authorizers := map[string]*RBACAuthorizer{
		"uncached": RBAC(testRBACPolicy()),
		"cached":   RBAC(&revisionedSource{RBACSource: testRBACPolicy()}),
	}
	for mode, z := range authorizers {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				for range 2 { // the second answer comes from the cache when there is one
					d, reason, err := z.Authorize(context.Background(), tt.attrs)
					require.NoError(t, err)
					assert.Equal(t, tt.want, d, reason)
					assert.Equal(t, tt.wantReason, reason)
				}
			})
		}
	}
}

// revisionedSource is an RBACSource with a revision the test moves, and a
// count of binding lists (to see when the authorizer walks the bindings).
type revisionedSource struct {
	RBACSource
	rev   atomic.Int64
	lists atomic.Int64
}

func (s *revisionedSource) RBACRevision() int64 { return s.rev.Load() }

func (s *revisionedSource) ListClusterRoleBindings() ([]*rbac.ClusterRoleBinding, error) {
	s.lists.Add(1)
	return s.RBACSource.ListClusterRoleBindings()
}

func TestRBACCacheFollowsRevision(t *testing.T) {
	p := testRBACPolicy()
	src := &revisionedSource{RBACSource: p}
	z := RBAC(src)
	frank := &authn.User{Name: "frank"}
	list := res(frank, "list", "prod", "", "pods", "", "")
	decide := func() Decision {
		d, _, err := z.Authorize(context.Background(), list)
		require.NoError(t, err)
		return d
	}
	assert.Equal(t, DecisionNoOpinion, decide())
	lists := src.lists.Load()
	assert.Equal(t, DecisionNoOpinion, decide())
	assert.Equal(t, lists, src.lists.Load(), "same revision: answered from the cache")

	p.ClusterRoleBindings = append(p.ClusterRoleBindings, &rbac.ClusterRoleBinding{ObjectMeta: om("", "frank-reads"),
		RoleRef: rbac.RoleRef{Kind: "ClusterRole", Name: "pod-reader"}, Subjects: []rbac.Subject{{Kind: rbac.UserKind, Name: "frank"}}})
	assert.Equal(t, DecisionNoOpinion, decide(), "the revision has not moved: the cached answer stands")
	src.rev.Add(1)
	assert.Equal(t, DecisionAllow, decide(), "a new binding counts once the revision moves")

	p.ClusterRoleBindings = p.ClusterRoleBindings[:len(p.ClusterRoleBindings)-1]
	src.rev.Add(1)
	assert.Equal(t, DecisionNoOpinion, decide(), "a removed binding stops counting")
}

func TestRBACCacheKeepsUsersApart(t *testing.T) {
	p := testRBACPolicy() // group "readers" may list pods
	z := RBAC(&revisionedSource{RBACSource: p})
	users := []struct {
		user *authn.User
		want Decision
	}{
		{&authn.User{Name: "x", Groups: []string{"readers"}}, DecisionAllow},
		{&authn.User{Name: "xreaders"}, DecisionNoOpinion},
		{&authn.User{Name: "x\x00readers"}, DecisionNoOpinion},
		{&authn.User{Name: "x", Groups: []string{"read", "ers"}}, DecisionNoOpinion},
		{&authn.User{Name: "x", Groups: []string{"readers"}}, DecisionAllow},
	}
	for _, u := range users {
		d, _, err := z.Authorize(context.Background(), res(u.user, "list", "", "", "pods", "", ""))
		require.NoError(t, err)
		assert.Equal(t, u.want, d, "%q %q", u.user.Name, u.user.Groups)
	}
}

func TestGrantCacheBounded(t *testing.T) {
	var c grantCache
	gs := &grantSet{}
	for i := range maxGrantSets + 10 {
		c.put(1, &authn.User{Name: fmt.Sprint("u", i)}, "", gs)
	}
	assert.LessOrEqual(t, len(c.sets), maxGrantSets)
	assert.Same(t, gs, c.get(1, &authn.User{Name: fmt.Sprint("u", maxGrantSets+9)}, ""))
	assert.Nil(t, c.get(2, &authn.User{Name: fmt.Sprint("u", maxGrantSets+9)}, ""), "another revision")
	c.put(0, &authn.User{Name: "old"}, "", gs)
	assert.Nil(t, c.get(1, &authn.User{Name: "old"}, ""), "a put for an older revision is dropped")
}

type brokenSource struct{ *Policy }

func (brokenSource) ListRoleBindings(string) ([]*rbac.RoleBinding, error) {
	return nil, errors.New("cache not synced")
}

func TestRBACSourceErrorsAreReasons(t *testing.T) {
	z := RBAC(brokenSource{testRBACPolicy()})
	d, reason, err := z.Authorize(context.Background(), res(&authn.User{Name: "alice"}, "list", "dev", "", "pods", "", ""))
	require.NoError(t, err)
	assert.Equal(t, DecisionNoOpinion, d)
	assert.Equal(t, "RBAC: cache not synced", reason)

	// A cluster-wide grant still works when namespaced bindings fail.
	d, _, _ = z.Authorize(context.Background(), res(&authn.User{Name: "carol"}, "list", "dev", "", "pods", "", ""))
	assert.Equal(t, DecisionAllow, d)
}

func TestBootstrapPolicy(t *testing.T) {
	z := Chain(Masters(), RBAC(BootstrapPolicy()))
	anon := &authn.User{Name: authn.AnonymousUser, Groups: []string{authn.GroupUnauthenticated}}
	bob := &authn.User{Name: "bob", Groups: []string{authn.GroupAuthenticated}}
	root := &authn.User{Name: "root", Groups: []string{authn.GroupMasters, authn.GroupAuthenticated}}
	sched := &authn.User{Name: KubeSchedulerUser, Groups: []string{authn.GroupAuthenticated}}
	kcm := &authn.User{Name: KubeControllerManagerUser, Groups: []string{authn.GroupAuthenticated}}
	proxy := &authn.User{Name: KubeProxyUser, Groups: []string{authn.GroupAuthenticated}}
	tests := []struct {
		name  string
		attrs Attributes
		want  Decision
	}{
		{"anonymous healthz", nonRes(anon, "get", "/healthz"), DecisionAllow},
		{"anonymous version", nonRes(anon, "get", "/version"), DecisionAllow},
		{"anonymous readyz livez", nonRes(anon, "get", "/livez"), DecisionAllow},
		{"anonymous no discovery", nonRes(anon, "get", "/api"), DecisionNoOpinion},
		{"anonymous no pods", res(anon, "list", "default", "", "pods", "", ""), DecisionNoOpinion},
		{"authenticated discovery", nonRes(bob, "get", "/apis/apps/v1"), DecisionAllow},
		{"authenticated openapi", nonRes(bob, "get", "/openapi/v2"), DecisionAllow},
		{"authenticated no metrics", nonRes(bob, "get", "/metrics"), DecisionNoOpinion},
		{"authenticated selfsubjectaccessreview", res(bob, "create", "", "authorization.k8s.io", "selfsubjectaccessreviews", "", ""), DecisionAllow},
		{"authenticated no pods", res(bob, "list", "default", "", "pods", "", ""), DecisionNoOpinion},
		{"masters anything", res(root, "delete", "", "", "nodes", "", "n1"), DecisionAllow},
		{"masters any path", nonRes(root, "get", "/debug/pprof/"), DecisionAllow},
		{"scheduler binds", res(sched, "create", "default", "", "pods", "binding", "web"), DecisionAllow},
		{"scheduler lists nodes", res(sched, "watch", "", "", "nodes", "", ""), DecisionAllow},
		{"scheduler own lease", res(sched, "update", "kube-system", "coordination.k8s.io", "leases", "", "kube-scheduler"), DecisionAllow},
		{"scheduler other lease", res(sched, "update", "kube-system", "coordination.k8s.io", "leases", "", "kube-controller-manager"), DecisionNoOpinion},
		{"scheduler no secrets", res(sched, "get", "default", "", "secrets", "", "s"), DecisionNoOpinion},
		{"controller manager creates pods", res(kcm, "create", "default", "", "pods", "", ""), DecisionAllow},
		{"controller manager scales replicasets", res(kcm, "update", "default", "apps", "replicasets", "", "web"), DecisionAllow},
		{"controller manager gc deletes anything", res(kcm, "delete", "default", "example.com", "widgets", "", "w"), DecisionAllow},
		{"proxy watches endpoints", res(proxy, "watch", "", "", "endpoints", "", ""), DecisionAllow},
		{"proxy no pods", res(proxy, "list", "", "", "pods", "", ""), DecisionNoOpinion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := z.Authorize(context.Background(), tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d, reason)
		})
	}
}

func TestBootstrapPolicyShape(t *testing.T) {
	p := BootstrapPolicy()
	names := map[string]*rbac.ClusterRole{}
	for _, r := range p.ClusterRoles {
		names[r.Name] = r
		assert.Equal(t, "true", r.Annotations[rbac.AutoUpdateAnnotationKey], r.Name)
		assert.Equal(t, "ClusterRole", r.Kind)
	}
	for _, want := range []string{"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user",
		"system:public-info-viewer", "system:kube-scheduler", "system:kube-controller-manager", "system:node-proxier"} {
		assert.Contains(t, names, want)
	}
	for _, b := range p.ClusterRoleBindings {
		_, err := p.GetClusterRole(b.RoleRef.Name)
		assert.NoError(t, err, "binding %s", b.Name)
	}
	// admin ⊇ edit ⊇ view, and view cannot read secrets.
	view, edit, admin := names["view"], names["edit"], names["admin"]
	assert.True(t, rbac.RulesAllow(view.Rules, "get", "apps", "deployments", "", "web"))
	assert.False(t, rbac.RulesAllow(view.Rules, "get", "", "secrets", "", "s"))
	assert.True(t, rbac.RulesAllow(edit.Rules, "get", "", "secrets", "", "s"))
	assert.False(t, rbac.RulesAllow(edit.Rules, "create", "rbac.authorization.k8s.io", "rolebindings", "", ""))
	assert.True(t, rbac.RulesAllow(admin.Rules, "create", "rbac.authorization.k8s.io", "rolebindings", "", ""))
	assert.NotNil(t, admin.AggregationRule)
	// metrics-server's reader role aggregates into view, edit and admin,
	// so they may read metrics.k8s.io (kubectl top); nothing else may.
	reader := names["system:aggregated-metrics-reader"]
	require.NotNil(t, reader)
	for _, to := range []string{"view", "edit", "admin"} {
		assert.Equal(t, "true", reader.Labels["rbac.authorization.k8s.io/aggregate-to-"+to])
		for _, res := range []string{"pods", "nodes"} {
			for _, verb := range []string{"get", "list", "watch"} {
				assert.True(t, rbac.RulesAllow(names[to].Rules, verb, "metrics.k8s.io", res, "", ""), "%s %s %s", to, verb, res)
			}
		}
		assert.False(t, rbac.RulesAllow(names[to].Rules, "create", "metrics.k8s.io", "pods", "", ""), to)
	}
	assert.False(t, rbac.RulesAllow(names["system:basic-user"].Rules, "list", "metrics.k8s.io", "pods", "", ""))
	// Every object passes the API's own validation, so the server can store it.
	for _, r := range p.ClusterRoles {
		assert.Empty(t, rbac.ValidateClusterRole(r), r.Name)
	}
	for _, b := range p.ClusterRoleBindings {
		assert.Empty(t, rbac.ValidateClusterRoleBinding(b), b.Name)
	}
	// Fresh objects each call.
	p.ClusterRoles[0].Name = "changed"
	assert.Equal(t, "cluster-admin", BootstrapPolicy().ClusterRoles[0].Name)
}

// TestDelegatedAuthPolicy: an aggregated API server's service account,
// bound as the Aggregator spec binds it (system:auth-delegator cluster
// wide, extension-apiserver-authentication-reader in kube-system), may
// review tokens and access and read the one authentication ConfigMap,
// and nothing more; the controller manager and the scheduler read it
// through the bootstrap RoleBinding.
func TestDelegatedAuthPolicy(t *testing.T) {
	p := BootstrapPolicy()
	sa := rbac.Subject{Kind: rbac.ServiceAccountKind, Name: "default", Namespace: "wardle"}
	p.ClusterRoleBindings = append(p.ClusterRoleBindings, &rbac.ClusterRoleBinding{ObjectMeta: meta.ObjectMeta{Name: "wardler:auth-delegator"},
		RoleRef: rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"}, Subjects: []rbac.Subject{sa}})
	p.RoleBindings = append(p.RoleBindings, &rbac.RoleBinding{ObjectMeta: meta.ObjectMeta{Name: "wardler-auth-reader", Namespace: "kube-system"},
		RoleRef: rbac.RoleRef{APIGroup: rbac.GroupName, Kind: "Role", Name: ExtensionAPIServerAuthenticationReader}, Subjects: []rbac.Subject{sa}})
	z := Chain(Masters(), RBAC(p))
	wardle := &authn.User{Name: "system:serviceaccount:wardle:default", Groups: []string{authn.GroupServiceAccounts, "system:serviceaccounts:wardle", authn.GroupAuthenticated}}
	kcm := &authn.User{Name: KubeControllerManagerUser, Groups: []string{authn.GroupAuthenticated}}
	const cm = "extension-apiserver-authentication"
	tests := []struct {
		name  string
		attrs Attributes
		want  Decision
	}{
		{"token review", res(wardle, "create", "", "authentication.k8s.io", "tokenreviews", "", ""), DecisionAllow},
		{"subject access review", res(wardle, "create", "", "authorization.k8s.io", "subjectaccessreviews", "", ""), DecisionAllow},
		{"get the configmap", res(wardle, "get", "kube-system", "", "configmaps", "", cm), DecisionAllow},
		{"watch the configmap by name", res(wardle, "watch", "kube-system", "", "configmaps", "", cm), DecisionAllow},
		{"list the configmap by name", res(wardle, "list", "kube-system", "", "configmaps", "", cm), DecisionAllow},
		{"no list of every configmap", res(wardle, "list", "kube-system", "", "configmaps", "", ""), DecisionNoOpinion},
		{"no other configmap", res(wardle, "get", "kube-system", "", "configmaps", "", "kubeadm-config"), DecisionNoOpinion},
		{"no configmap elsewhere", res(wardle, "get", "default", "", "configmaps", "", cm), DecisionNoOpinion},
		{"no update", res(wardle, "update", "kube-system", "", "configmaps", "", cm), DecisionNoOpinion},
		{"no self subject review escalation", res(wardle, "create", "", "authorization.k8s.io", "localsubjectaccessreviews", "", ""), DecisionNoOpinion},
		{"controller manager reads it", res(kcm, "get", "kube-system", "", "configmaps", "", cm), DecisionAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := z.Authorize(context.Background(), tt.attrs)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d, reason)
		})
	}
	for _, r := range p.Roles {
		assert.Empty(t, rbac.ValidateRole(r), r.Name)
		assert.Equal(t, "Role", r.Kind)
	}
	for _, b := range p.RoleBindings {
		assert.Empty(t, rbac.ValidateRoleBinding(b), b.Name)
	}
}
