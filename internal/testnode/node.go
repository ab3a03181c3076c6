package testnode

import (
	"context"
	"fmt"
	"time"

	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// nodeIP is node i's (never contacted) address, from TEST-NET-2.
func nodeIP(i int) string { return fmt.Sprintf("198.51.100.%d", 1+i%250) }

// registerNodes creates the agent's nodes (or takes existing ones over)
// and reports them Ready.
func (a *Agent) registerNodes(ctx context.Context) error {
	for _, name := range a.NodeNames() {
		if err := a.registerNode(ctx, a.nodeIndex(name), name); err != nil {
			return err
		}
		if err := a.renewLease(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (a *Agent) registerNode(ctx context.Context, i int, name string) error {
	nodes := client.For[core.Node](a.c, "")
	n := &core.Node{ObjectMeta: meta.ObjectMeta{Name: name, Labels: map[string]string{
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"orkit.io/testnode": "true"}}}
	if _, err := nodes.Create(ctx, n); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("testnode: register node %s: %w", name, err)
	}
	var err error
	for range 10 { // controllers (IPAM) may write the node meanwhile
		if err = a.heartbeat(ctx, i, name, false); !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("testnode: report node %s ready: %w", name, err)
	}
	return nil
}

// nodeStatus returns node i's status: Ready, with capacity and addresses.
func (a *Agent) nodeStatus(i int, name string, old core.NodeStatus) core.NodeStatus {
	now := meta.Now()
	st := old
	st.Capacity, st.Allocatable = a.opts.Capacity, a.opts.Capacity
	st.Phase = core.NodeRunning
	st.Addresses = []core.NodeAddress{{Type: core.NodeInternalIP, Address: nodeIP(i)},
		{Type: core.NodeHostName, Address: name}}
	st.NodeInfo.KubeletVersion = "v1.32.0-testnode"
	st.NodeInfo.OperatingSystem, st.NodeInfo.Architecture = "linux", "amd64"
	conds := []core.NodeCondition{{Type: core.NodeReady, Status: meta.ConditionTrue, Reason: "KubeletReady",
		Message: "testnode is posting ready status"}}
	for _, t := range []core.NodeConditionType{core.NodeMemoryPressure, core.NodeDiskPressure, core.NodePIDPressure} {
		conds = append(conds, core.NodeCondition{Type: t, Status: meta.ConditionFalse, Reason: "KubeletHas" + "No" + string(t)})
	}
	for j := range conds {
		conds[j].LastHeartbeatTime, conds[j].LastTransitionTime = now, now
		for _, o := range old.Conditions {
			if o.Type == conds[j].Type && o.Status == conds[j].Status && !o.LastTransitionTime.IsZero() {
				conds[j].LastTransitionTime = o.LastTransitionTime
			}
		}
	}
	st.Conditions = conds
	return st
}

// heartbeats renews the nodes' Leases and Ready conditions until ctx ends.
func (a *Agent) heartbeats(ctx context.Context) {
	t := time.NewTicker(a.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, name := range a.NodeNames() {
			i := a.nodeIndex(name)
			if i < 0 {
				continue // removed meanwhile
			}
			if err := a.heartbeat(ctx, i, name, true); err != nil && ctx.Err() == nil {
				a.opts.Logger.Debug("testnode: heartbeat", "node", name, "err", err)
			}
		}
	}
}

func (a *Agent) heartbeat(ctx context.Context, i int, name string, lease bool) error {
	if lease {
		if err := a.renewLease(ctx, name); err != nil {
			return err
		}
	}
	nodes := client.For[core.Node](a.c, "")
	n, err := nodes.Get(ctx, name)
	if err != nil {
		return err
	}
	n.Status = a.nodeStatus(i, name, n.Status)
	_, err = nodes.UpdateStatus(ctx, n)
	return err
}

// renewLease creates or renews node name's Lease in kube-node-lease.
func (a *Agent) renewLease(ctx context.Context, name string) error {
	leases := client.For[coordination.Lease](a.c, coordination.NodeLeaseNamespace)
	now := meta.NowMicro()
	dur := int32(40)
	l, err := leases.Get(ctx, name)
	if apierrors.IsNotFound(err) {
		l = &coordination.Lease{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: coordination.NodeLeaseNamespace},
			Spec: coordination.LeaseSpec{HolderIdentity: &name, LeaseDurationSeconds: &dur, RenewTime: &now}}
		_, err = leases.Create(ctx, l)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("testnode: create lease %s: %w", name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("testnode: get lease %s: %w", name, err)
	}
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime = &name, &dur, &now
	if _, err := leases.Update(ctx, l); err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("testnode: renew lease %s: %w", name, err)
	}
	return nil
}
