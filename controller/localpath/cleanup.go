package localpath

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/orkit/orkit/api/core"
	apierrors "github.com/orkit/orkit/api/errors"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/client"
)

// syncVolume applies a released volume's reclaim policy when this
// provisioner made it: Retain keeps it; Delete removes its directory on
// its node through a helper pod, then deletes the volume.
func (c *Controller) syncVolume(ctx context.Context, pv *core.PersistentVolume) error {
	if pv.Annotations[AnnProvisionedBy] != c.cfg.Provisioner || pv.DeletionTimestamp != nil ||
		pv.Status.Phase != core.VolumeReleased || pv.Spec.PersistentVolumeReclaimPolicy != core.PersistentVolumeReclaimDelete {
		return nil
	}
	dir, err := c.dirOf(pv)
	if err != nil {
		return c.failVolume(ctx, pv, err.Error())
	}
	node := NodeOf(pv)
	if _, err := c.nodes.Get("", node); node == "" || err != nil {
		c.log.Info("volume's node is gone; deleting the volume without cleanup", "volume", pv.Name, "node", node)
		return c.deleteVolume(ctx, pv)
	}
	pod, err := c.pods.Get(c.cfg.HelperNamespace, helperName(pv.Name))
	if err != nil {
		return c.createHelper(ctx, pv, node, dir)
	}
	switch pod.Status.Phase {
	case core.PodSucceeded:
		c.log.Info("removed volume directory", "volume", pv.Name, "node", node, "path", dir)
		if err := c.deleteVolume(ctx, pv); err != nil {
			return err
		}
		return c.deleteHelper(ctx, pv.Name)
	case core.PodFailed:
		msg := fmt.Sprintf("cleanup pod %s/%s failed on node %s", pod.Namespace, pod.Name, node)
		if err := c.failVolume(ctx, pv, msg); err != nil {
			return err
		}
		return c.deleteHelper(ctx, pv.Name)
	}
	return nil // running: its next status brings the volume back
}

// dirOf returns the directory a provisioned volume names, which must be
// directly inside BaseDir (a volume claiming to be ours but pointing
// elsewhere is never cleaned up).
func (c *Controller) dirOf(pv *core.PersistentVolume) (string, error) {
	if pv.Spec.HostPath == nil {
		return "", fmt.Errorf("%w: volume %s has no hostPath", ErrOutsideBaseDir, pv.Name)
	}
	p := filepath.Clean(pv.Spec.HostPath.Path)
	if filepath.Dir(p) != c.cfg.BaseDir || !strings.HasPrefix(filepath.Base(p), pv.Name) {
		return "", fmt.Errorf("%w: %s is not the directory of volume %s in %s", ErrOutsideBaseDir, p, pv.Name, c.cfg.BaseDir)
	}
	return p, nil
}

// helperName is the name of the pod that cleans up a volume.
func helperName(volume string) string { return "helper-delete-" + volume }

// createHelper starts the pod that removes dir on node: BaseDir mounted
// from the host, the helper command given the directory's path inside it.
func (c *Controller) createHelper(ctx context.Context, pv *core.PersistentVolume, node, dir string) error {
	// DirectoryOrCreate: a volume no pod ever mounted has no directory
	// (nor, perhaps, a base directory) on its node; rm-dir then succeeds.
	dirType := core.HostPathDirectoryOrCreate
	noToken := false
	const mountAt = "/data"
	cmd := append(append([]string(nil), c.cfg.HelperCommand...), filepath.Join(mountAt, filepath.Base(dir)))
	pod := &core.Pod{
		ObjectMeta: meta.ObjectMeta{Name: helperName(pv.Name), Namespace: c.cfg.HelperNamespace,
			Labels: map[string]string{LabelHelperVolume: pv.Name}},
		Spec: core.PodSpec{
			NodeName:                     node,
			RestartPolicy:                core.RestartPolicyNever,
			AutomountServiceAccountToken: &noToken,
			Tolerations:                  []core.Toleration{{Operator: core.TolerationOpExists}},
			Containers: []core.Container{{Name: "helper", Image: c.cfg.HelperImage, Command: cmd,
				ImagePullPolicy: core.PullIfNotPresent,
				VolumeMounts:    []core.VolumeMount{{Name: "data", MountPath: mountAt}}}},
			Volumes: []core.Volume{{Name: "data", VolumeSource: core.VolumeSource{
				HostPath: &core.HostPathVolumeSource{Path: c.cfg.BaseDir, Type: &dirType}}}},
		},
	}
	_, err := client.For[core.Pod](c.client, c.cfg.HelperNamespace).Create(ctx, pod)
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("start cleanup of volume %s: %w", pv.Name, err)
	}
	c.log.Info("cleaning up volume", "volume", pv.Name, "node", node, "path", dir)
	return nil
}

// deleteHelper deletes a volume's helper pod, if any.
func (c *Controller) deleteHelper(ctx context.Context, volume string) error {
	if _, err := c.pods.Get(c.cfg.HelperNamespace, helperName(volume)); err != nil {
		return nil
	}
	err := client.For[core.Pod](c.client, c.cfg.HelperNamespace).Delete(ctx, helperName(volume), nil)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete cleanup pod of volume %s: %w", volume, err)
	}
	return nil
}

// deleteVolume deletes the volume (this very one: UID precondition).
func (c *Controller) deleteVolume(ctx context.Context, pv *core.PersistentVolume) error {
	uid := pv.UID
	err := client.For[core.PersistentVolume](c.client, "").Delete(ctx, pv.Name, &meta.DeleteOptions{Preconditions: &meta.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete released volume %s: %w", pv.Name, err)
	}
	c.log.Info("deleted released volume", "volume", pv.Name)
	return nil
}

// failVolume marks the volume Failed with msg and records why.
func (c *Controller) failVolume(ctx context.Context, pv *core.PersistentVolume, msg string) error {
	if pv.Status.Phase == core.VolumeFailed && pv.Status.Message == msg {
		return nil
	}
	c.rec.Event(pv, core.EventTypeWarning, "VolumeFailedDelete", msg)
	next := meta.DeepCopy(pv)
	now := meta.Now()
	next.Status = core.PersistentVolumeStatus{Phase: core.VolumeFailed, Message: msg, LastPhaseTransitionTime: &now}
	_, err := client.For[core.PersistentVolume](c.client, "").UpdateStatus(ctx, next)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set volume %s Failed: %w", pv.Name, err)
	}
	return nil
}
