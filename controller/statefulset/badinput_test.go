package statefulset

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/controller"
	"github.com/orkit/orkit/informer"
	"github.com/orkit/orkit/internal/testnode"
)

// offlineController is a Controller over hand-filled caches and no
// client: enough for reconciles that must fail before writing anything.
func offlineController(t *testing.T, sets []*apps.StatefulSet, revs []*apps.ControllerRevision) *Controller {
	t.Helper()
	setIx := informer.NewIndexer[*apps.StatefulSet](nil)
	for _, s := range sets {
		_, _, err := setIx.Put(s)
		require.NoError(t, err)
	}
	revIx := informer.NewIndexer[*apps.ControllerRevision](nil)
	for _, r := range revs {
		_, _, err := revIx.Put(r)
		require.NoError(t, err)
	}
	return &Controller{sets: informer.NewLister(setIx), revisions: informer.NewLister(revIx),
		pods: informer.NewLister(informer.NewIndexer[*core.Pod](nil)), claims: informer.NewLister(informer.NewIndexer[*core.PersistentVolumeClaim](nil)),
		log: testnode.QuietLogger()}
}

func TestBadInputIsTerminal(t *testing.T) {
	mismatched := webSet("ns", 1, "")
	mismatched.Spec.Selector = &meta.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
	badOp := webSet("ns", 1, "")
	badOp.Name = "bad-op"
	badOp.Spec.Selector = &meta.LabelSelector{MatchExpressions: []meta.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
	empty := webSet("ns", 1, "")
	empty.Name = "empty"
	empty.Spec.Selector = &meta.LabelSelector{}

	broken := webSet("ns", 1, "")
	broken.Name = "broken"
	broken.UID = "broken-uid"
	hash := TemplateHash(&broken.Spec.Template, 0)
	broken.Status.CurrentRevision = "broken-old"
	yes := true
	owned := []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "broken", UID: "broken-uid", Controller: &yes}}
	revs := []*apps.ControllerRevision{
		{ObjectMeta: meta.ObjectMeta{Name: "broken-" + hash, Namespace: "ns", OwnerReferences: owned}, Data: []byte(`{}`), Revision: 2},
		{ObjectMeta: meta.ObjectMeta{Name: "broken-old", Namespace: "ns", OwnerReferences: owned}, Data: []byte(`{"spec":"not a template"}`), Revision: 1},
	}
	c := offlineController(t, []*apps.StatefulSet{mismatched, badOp, empty, broken}, revs)
	tests := []struct {
		name string
		want error
	}{
		{"web", ErrInvalidSelector}, {"bad-op", ErrInvalidSelector}, {"empty", ErrInvalidSelector}, {"broken", ErrBadRevision},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Reconcile(context.Background(), controller.Request{Namespace: "ns", Name: tt.name})
			require.Error(t, err)
			assert.True(t, controller.IsTerminal(err), "not retried: %v", err)
			assert.True(t, errors.Is(err, tt.want), "%v", err)
		})
	}
	res, err := c.Reconcile(context.Background(), controller.Request{Namespace: "ns", Name: "missing"})
	require.NoError(t, err, "a set that is gone is done")
	assert.True(t, res.IsZero())
}
