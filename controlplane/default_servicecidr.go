package controlplane

import (
	"context"
	"fmt"
	"slices"

	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/networking"
	"github.com/orkit/orkit/apiserver"
	"github.com/orkit/orkit/client"
)

// defaultServiceCIDRs are the ranges of the default ServiceCIDR: the
// service range the kubernetes Service's address (MasterServiceIP) is
// the first host of, which is also the Service allocator's default.
var defaultServiceCIDRs = []string{apiserver.DefaultServiceCIDR}

// defaultServiceCIDRReady is the message of the Ready condition on the
// default ServiceCIDR, as kube-apiserver's default ServiceCIDR controller
// writes it (with no reason).
const defaultServiceCIDRReady = "Kubernetes default Service CIDR is ready"

// ensureDefaultServiceCIDR keeps the ServiceCIDR "kubernetes" as
// kube-apiserver's default ServiceCIDR controller does: created with
// cidrs when missing (again after a delete), and marked Ready=True when
// it has no Ready condition or an Unknown one and its ranges are cidrs.
// One whose ranges differ, or which is being deleted, is left alone. A
// conflicting status write fails; the next reconcile tries again.
func ensureDefaultServiceCIDR(ctx context.Context, c *client.Client, cidrs []string) error {
	r := client.For[networking.ServiceCIDR](c, "")
	cur, err := r.Get(ctx, networking.DefaultServiceCIDRName)
	if apierrors.IsNotFound(err) {
		cur, err = r.Create(ctx, &networking.ServiceCIDR{
			ObjectMeta: meta.ObjectMeta{Name: networking.DefaultServiceCIDRName},
			Spec:       networking.ServiceCIDRSpec{CIDRs: cidrs},
		})
		if apierrors.IsAlreadyExists(err) {
			cur, err = r.Get(ctx, networking.DefaultServiceCIDRName)
		}
	}
	if err != nil {
		return fmt.Errorf("default service CIDR: %w", err)
	}
	if cur.DeletionTimestamp != nil || !slices.Equal(cur.Spec.CIDRs, cidrs) || !setReady(&cur.Status) {
		return nil
	}
	if _, err := r.UpdateStatus(ctx, cur); err != nil {
		return fmt.Errorf("default service CIDR status: %w", err)
	}
	return nil
}

// setReady sets the Ready condition of s to True when it is missing or
// Unknown, and reports whether it did. A False one (another component's
// verdict) is kept.
func setReady(s *networking.ServiceCIDRStatus) bool {
	ready := meta.Condition{Type: networking.ServiceCIDRConditionReady, Status: meta.ConditionTrue,
		Message: defaultServiceCIDRReady, LastTransitionTime: meta.Now()}
	i := slices.IndexFunc(s.Conditions, func(c meta.Condition) bool { return c.Type == networking.ServiceCIDRConditionReady })
	switch {
	case i < 0:
		s.Conditions = append(s.Conditions, ready)
	case s.Conditions[i].Status == meta.ConditionUnknown:
		s.Conditions[i] = ready
	default:
		return false
	}
	return true
}
