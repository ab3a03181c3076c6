package daemonset

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/internal/testnode"
)

func TestInvalidSelectorIsTerminal(t *testing.T) {
	ix := informer.NewIndexer[*apps.DaemonSet](nil)
	for name, sel := range map[string]*meta.LabelSelector{
		"mismatched": {MatchLabels: map[string]string{"app": "other"}},
		"bad-op":     {MatchExpressions: []meta.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}},
		"empty":      {},
	} {
		ds := daemonSet("ns")
		ds.Name, ds.Spec.Selector = name, sel
		_, _, err := ix.Put(ds)
		require.NoError(t, err)
	}
	c := &Controller{sets: informer.NewLister(ix), exp: controller.NewExpectations(nil, 0), log: testnode.QuietLogger()}
	for _, name := range []string{"mismatched", "bad-op", "empty"} {
		t.Run(name, func(t *testing.T) {
			_, err := c.Reconcile(context.Background(), controller.Request{Namespace: "ns", Name: name})
			require.Error(t, err)
			assert.True(t, controller.IsTerminal(err))
			assert.True(t, errors.Is(err, ErrInvalidSelector), "%v", err)
		})
	}
	_, err := c.Reconcile(context.Background(), controller.Request{Namespace: "ns", Name: "missing"})
	assert.NoError(t, err)
}
