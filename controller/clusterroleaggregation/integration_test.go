package clusterroleaggregation_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/controller/clusterroleaggregation"
	"github.com/orkit/orkit/internal/testnode"
)

func allows(cr *rbac.ClusterRole, verb, group, resource string) bool {
	return rbac.RulesAllow(cr.Rules, verb, group, resource, "", "")
}

// TestAggregation: a ClusterRole labelled aggregate-to-view adds its rules
// to view (and, labelled for edit too, to edit); a user-made aggregated
// role gets the rules of the roles it selects; changing or deleting a
// selected role takes its rules away again. The bootstrap rules stay.
func TestAggregation(t *testing.T) {
	cl := testnode.StartCluster(t)
	c := cl.Client(t, cl.AdminKubeconfig)
	m, err := controller.NewManager(controller.ManagerConfig{Client: cl.Client(t, cl.ControllerKubeconfig), Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	ac, err := clusterroleaggregation.New(m, clusterroleaggregation.Config{Logger: testnode.QuietLogger()})
	require.NoError(t, err)
	require.NoError(t, m.Add(ac))
	testnode.RunManager(t, m)
	ctx := context.Background()
	roles := client.For[rbac.ClusterRole](c, "")
	get := func(name string) *rbac.ClusterRole {
		cr, err := roles.Get(ctx, name)
		require.NoError(t, err)
		return cr
	}

	widgets := &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "widgets-view", Labels: map[string]string{
		"rbac.authorization.k8s.io/aggregate-to-view": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
		Rules: []rbac.PolicyRule{{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}}}
	_, err = roles.Create(ctx, widgets)
	require.NoError(t, err)
	for _, name := range []string{"view", "edit", "admin"} {
		want := name != "admin"
		testnode.Eventually(t, 30*time.Second, func() bool { return allows(get(name), "list", "example.com", "widgets") == want }, "%s and widgets", name)
	}
	view := get("view")
	assert.True(t, allows(view, "get", "apps", "deployments"), "bootstrap rules kept")
	assert.True(t, allows(view, "list", "metrics.k8s.io", "pods"), "metrics reader kept")

	// A user's own aggregated role.
	_, err = roles.Create(ctx, &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "team"},
		AggregationRule: &rbac.AggregationRule{ClusterRoleSelectors: []meta.LabelSelector{{MatchLabels: map[string]string{"team": "blue"}}}}})
	require.NoError(t, err)
	_, err = roles.Create(ctx, &rbac.ClusterRole{ObjectMeta: meta.ObjectMeta{Name: "blue-secrets", Labels: map[string]string{"team": "blue"}},
		Rules: []rbac.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}}})
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool { return allows(get("team"), "get", "", "secrets") }, "team gets blue-secrets")

	// Relabelled: its rules leave view; deleted: they leave team.
	w := get("widgets-view")
	delete(w.Labels, "rbac.authorization.k8s.io/aggregate-to-view")
	_, err = roles.Update(ctx, w)
	require.NoError(t, err)
	testnode.Eventually(t, 30*time.Second, func() bool { return !allows(get("view"), "list", "example.com", "widgets") }, "widgets left view")
	assert.True(t, allows(get("edit"), "list", "example.com", "widgets"), "still in edit")
	require.NoError(t, roles.Delete(ctx, "blue-secrets", nil))
	testnode.Eventually(t, 30*time.Second, func() bool { return len(get("team").Rules) == 0 }, "team has no rules left")
}

func TestNewErrors(t *testing.T) {
	_, err := clusterroleaggregation.New(nil, clusterroleaggregation.Config{})
	require.ErrorIs(t, err, clusterroleaggregation.ErrInvalidConfig)
}
