package controlplane

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/client"
)

func TestSetReady(t *testing.T) {
	other := meta.Condition{Type: "Other", Status: meta.ConditionTrue, Reason: "Fine"}
	tests := []struct {
		name    string
		conds   []meta.Condition
		changed bool
		want    meta.ConditionStatus
	}{
		{"none", nil, true, meta.ConditionTrue},
		{"other only", []meta.Condition{other}, true, meta.ConditionTrue},
		{"unknown", []meta.Condition{other, {Type: "Ready", Status: meta.ConditionUnknown}}, true, meta.ConditionTrue},
		{"false is kept", []meta.Condition{{Type: "Ready", Status: meta.ConditionFalse, Reason: "Terminating"}}, false, meta.ConditionFalse},
		{"true is kept", []meta.Condition{{Type: "Ready", Status: meta.ConditionTrue, Message: "old"}}, false, meta.ConditionTrue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := networking.ServiceCIDRStatus{Conditions: tt.conds}
			assert.Equal(t, tt.changed, setReady(&s))
			var ready *meta.Condition
			for i := range s.Conditions {
				if s.Conditions[i].Type == "Ready" {
					ready = &s.Conditions[i]
				}
			}
			require.NotNil(t, ready)
			assert.Equal(t, tt.want, ready.Status)
			if tt.changed {
				assert.Equal(t, defaultServiceCIDRReady, ready.Message)
				assert.Empty(t, ready.Reason, "kube's controller sets no reason")
				assert.False(t, ready.LastTransitionTime.IsZero())
			}
			if len(tt.conds) > 0 && tt.conds[0].Type == "Other" {
				assert.Equal(t, other, s.Conditions[0], "other conditions are kept")
			}
		})
	}
}

// TestDefaultServiceCIDR: the control plane starts with the ServiceCIDR
// "kubernetes" holding the default service range, Ready=True; it is made
// again after a delete; a Ready=False verdict is kept; an Unknown one
// becomes True, but not when the ranges are not the configured ones.
func TestDefaultServiceCIDR(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cp, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: freeAddr(t)})
	require.NoError(t, err)
	cfg, err := cp.ClientConfig("admin", "system:masters")
	require.NoError(t, err)
	c, err := client.New(cfg)
	require.NoError(t, err)
	r := client.For[networking.ServiceCIDR](c, "")

	got, err := r.Get(ctx, networking.DefaultServiceCIDRName)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.96.0.0/12"}, got.Spec.CIDRs)
	require.Len(t, got.Status.Conditions, 1)
	assert.Equal(t, "Ready", got.Status.Conditions[0].Type)
	assert.Equal(t, meta.ConditionTrue, got.Status.Conditions[0].Status)
	assert.Equal(t, "Kubernetes default Service CIDR is ready", got.Status.Conditions[0].Message)

	// The reconciler runs every 10s beside this test: no step relies on
	// it not having run.
	require.NoError(t, r.Delete(ctx, networking.DefaultServiceCIDRName, nil))
	require.NoError(t, ensureDefaultServiceCIDR(ctx, c, defaultServiceCIDRs))
	again, err := r.Get(ctx, networking.DefaultServiceCIDRName)
	require.NoError(t, err)
	assert.NotEqual(t, got.UID, again.UID)
	assert.Equal(t, meta.ConditionTrue, again.Status.Conditions[0].Status)

	again.Status.Conditions[0].Status, again.Status.Conditions[0].Reason = meta.ConditionFalse, "Broken"
	again, err = r.UpdateStatus(ctx, again)
	require.NoError(t, err)
	require.NoError(t, ensureDefaultServiceCIDR(ctx, c, defaultServiceCIDRs))
	kept, err := r.Get(ctx, networking.DefaultServiceCIDRName)
	require.NoError(t, err)
	assert.Equal(t, meta.ConditionFalse, kept.Status.Conditions[0].Status)

	kept.Status.Conditions[0].Status = meta.ConditionUnknown
	_, err = r.UpdateStatus(ctx, kept)
	require.NoError(t, err)
	require.NoError(t, ensureDefaultServiceCIDR(ctx, c, []string{"10.0.0.0/16"}))
	other, err := r.Get(ctx, networking.DefaultServiceCIDRName)
	require.NoError(t, err)
	assert.Equal(t, meta.ConditionUnknown, other.Status.Conditions[0].Status, "other ranges are not marked ready")
	require.NoError(t, ensureDefaultServiceCIDR(ctx, c, defaultServiceCIDRs))
	other, err = r.Get(ctx, networking.DefaultServiceCIDRName)
	require.NoError(t, err)
	assert.Equal(t, meta.ConditionTrue, other.Status.Conditions[0].Status, "Unknown becomes True")
}
