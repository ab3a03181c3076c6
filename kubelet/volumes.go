package kubelet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/client"
	"github.com/orkit/orkit/cri"
)

// Volume plugin directory names under pods/<uid>/volumes, as the kubelet's.
const (
	pluginEmptyDir    = "kubernetes.io~empty-dir"
	pluginSecret      = "kubernetes.io~secret"
	pluginConfigMap   = "kubernetes.io~configmap"
	pluginDownwardAPI = "kubernetes.io~downward-api"
)

// mountedVolume is a volume ready for containers: its host path, and
// whether the kubelet mounted a tmpfs there; for an image volume, the
// image the runtime mounts instead of a host path.
type mountedVolume struct {
	path     string
	readOnly bool
	tmpfs    bool
	image    *core.ImageVolumeSource
}

func (k *Kubelet) podDir(uid string) string { return filepath.Join(k.cfg.RootDir, "pods", uid) }

// ensurePodDirs makes pods/<uid>/{volumes,plugins,containers}.
func (k *Kubelet) ensurePodDirs(pod *core.Pod) error {
	if k.cfg.RootDir == "" {
		return nil
	}
	for _, sub := range []string{"volumes", "plugins", "containers"} {
		if err := os.MkdirAll(filepath.Join(k.podDir(string(pod.UID)), sub), 0o750); err != nil {
			return fmt.Errorf("pod dir: %w", err)
		}
	}
	return nil
}

// removePodDirs removes pods/<uid> and the pod's log directory. Mounts
// must be gone (teardownVolumes); a directory still holding a mount is
// not removed (os.RemoveAll would fail on the busy mount point).
func (k *Kubelet) removePodDirs(uid string) error {
	if k.cfg.RootDir == "" {
		return nil
	}
	if err := os.RemoveAll(k.podDir(string(uid))); err != nil {
		return fmt.Errorf("remove pod dir: %w", err)
	}
	if k.cfg.LogDir != "" {
		matches, _ := filepath.Glob(filepath.Join(k.cfg.LogDir, "*_"+string(uid)))
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				return fmt.Errorf("remove pod log dir: %w", err)
			}
		}
	}
	return nil
}

// cleanupOrphanDirs removes pod directories of pods the kubelet does not run.
func (k *Kubelet) cleanupOrphanDirs() error {
	if k.cfg.RootDir == "" {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(k.cfg.RootDir, "pods"))
	if err != nil {
		return nil
	}
	var errs []error
	for _, e := range entries {
		k.mu.Lock()
		_, known := k.workers[metaUID(e.Name())]
		k.mu.Unlock()
		if known {
			continue
		}
		dir := filepath.Join(k.cfg.RootDir, "pods", e.Name())
		unmountUnder(dir)
		if err := k.removePodDirs(e.Name()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ensureVolumes sets up every volume of the pod (idempotently; secret,
// configMap and downwardAPI contents are refreshed in place, atomically).
func (k *Kubelet) ensureVolumes(ctx context.Context, pod *core.Pod, ps *podState) error {
	if k.cfg.RootDir == "" {
		return nil
	}
	if ps.volumes == nil {
		ps.volumes = map[string]mountedVolume{}
	}
	src := newRefSource(k.cfg.Client, pod.Namespace)
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		mv, err := k.setUpVolume(ctx, src, pod, v, ps.volumes[v.Name])
		if err != nil {
			k.podEvent(pod, core.EventTypeWarning, EventFailedMount, "MountVolume.SetUp failed for volume %q : %v", v.Name, err)
			return fmt.Errorf("%w: volume %q of pod %s: %w", ErrVolume, v.Name, podKey(pod), err)
		}
		ps.volumes[v.Name] = mv
	}
	return nil
}

func (k *Kubelet) volumeDir(pod *core.Pod, plugin, name string) string {
	return filepath.Join(k.podDir(string(pod.UID)), "volumes", plugin, name)
}

// setUpVolume sets up one volume; prev is its earlier state.
func (k *Kubelet) setUpVolume(ctx context.Context, src *refSource, pod *core.Pod, v *core.Volume, prev mountedVolume) (mountedVolume, error) {
	switch {
	case v.EmptyDir != nil:
		return k.setUpEmptyDir(pod, v, prev)
	case v.HostPath != nil:
		return setUpHostPath(v.HostPath)
	case v.Secret != nil:
		dir := k.volumeDir(pod, pluginSecret, v.Name)
		files, err := secretFiles(ctx, src, v.Secret)
		if err != nil {
			return prev, err
		}
		mv := mountedVolume{path: dir, readOnly: true}
		mv.tmpfs = k.memoryBacked(dir)
		return mv, writeAtomic(dir, files)
	case v.ConfigMap != nil:
		dir := k.volumeDir(pod, pluginConfigMap, v.Name)
		files, err := configMapFiles(ctx, src, v.ConfigMap)
		if err != nil {
			return prev, err
		}
		return mountedVolume{path: dir, readOnly: true}, writeAtomic(dir, files)
	case v.DownwardAPI != nil:
		dir := k.volumeDir(pod, pluginDownwardAPI, v.Name)
		files, err := k.downwardFiles(pod, v.DownwardAPI)
		if err != nil {
			return prev, err
		}
		return mountedVolume{path: dir, readOnly: true}, writeAtomic(dir, files)
	case v.Projected != nil:
		return k.setUpProjected(ctx, src, pod, v, prev)
	case v.PersistentVolumeClaim != nil:
		return k.setUpClaim(ctx, pod, v.PersistentVolumeClaim)
	case v.Image != nil:
		// Pulled before each container that mounts it starts
		// (ensureImageVolumes); the runtime mounts it.
		return mountedVolume{image: v.Image, readOnly: true}, nil
	}
	return prev, fmt.Errorf("unsupported volume type")
}

// setUpEmptyDir makes the directory; medium Memory mounts a tmpfs sized
// by sizeLimit.
func (k *Kubelet) setUpEmptyDir(pod *core.Pod, v *core.Volume, prev mountedVolume) (mountedVolume, error) {
	dir := k.volumeDir(pod, pluginEmptyDir, v.Name)
	mv := mountedVolume{path: dir}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return prev, err
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return prev, err
	}
	if v.EmptyDir.Medium != core.StorageMediumMemory {
		return mv, nil
	}
	mv.tmpfs = true
	if isMountPoint(dir) {
		return mv, nil
	}
	opts := "mode=0777"
	if q := v.EmptyDir.SizeLimit; q != nil && q.Sign() > 0 {
		opts += ",size=" + strconv.FormatInt(q.Value(), 10)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return prev, fmt.Errorf("mount tmpfs: %w", err)
	}
	return mv, nil
}

// memoryBacked mounts a tmpfs on dir (once), so secrets never reach the
// node's disk, as the kubelet does. Without the right to mount it logs and
// leaves dir on disk.
func (k *Kubelet) memoryBacked(dir string) bool {
	if err := os.MkdirAll(dir, 0o750); err != nil || isMountPoint(dir) {
		return err == nil
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=0755"); err != nil {
		k.cfg.Logger.Warn("secret volume stays on disk: cannot mount tmpfs", "dir", dir, "err", err)
		return false
	}
	return true
}

// setUpHostPath checks the host path against its type, creating it for the
// *OrCreate types.
func setUpHostPath(hp *core.HostPathVolumeSource) (mountedVolume, error) {
	mv := mountedVolume{path: hp.Path}
	t := core.HostPathUnset
	if hp.Type != nil {
		t = *hp.Type
	}
	fi, err := os.Stat(hp.Path)
	switch t {
	case core.HostPathUnset:
		return mv, nil
	case core.HostPathDirectoryOrCreate:
		if errors.Is(err, fs.ErrNotExist) {
			return mv, os.MkdirAll(hp.Path, 0o755)
		}
		if err == nil && !fi.IsDir() {
			return mv, fmt.Errorf("hostPath %s exists and is not a directory", hp.Path)
		}
		return mv, err
	case core.HostPathFileOrCreate:
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(hp.Path), 0o755); err != nil {
				return mv, err
			}
			f, err := os.OpenFile(hp.Path, os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return mv, err
			}
			return mv, f.Close()
		}
		if err == nil && !fi.Mode().IsRegular() {
			return mv, fmt.Errorf("hostPath %s exists and is not a file", hp.Path)
		}
		return mv, err
	}
	if err != nil {
		return mv, fmt.Errorf("hostPath %s: %w", hp.Path, err)
	}
	ok := map[core.HostPathType]bool{
		core.HostPathDirectory: fi.IsDir(),
		core.HostPathFile:      fi.Mode().IsRegular(),
		core.HostPathSocket:    fi.Mode()&fs.ModeSocket != 0,
		core.HostPathCharDev:   fi.Mode()&fs.ModeCharDevice != 0,
		core.HostPathBlockDev:  fi.Mode()&fs.ModeDevice != 0 && fi.Mode()&fs.ModeCharDevice == 0,
	}
	good, known := ok[t]
	if !known {
		return mv, fmt.Errorf("hostPath %s: unknown type %q", hp.Path, t)
	}
	if !good {
		return mv, fmt.Errorf("hostPath %s is not a %s", hp.Path, t)
	}
	return mv, nil
}

// setUpClaim resolves a claim to its bound local PersistentVolume's path.
func (k *Kubelet) setUpClaim(ctx context.Context, pod *core.Pod, src *core.PersistentVolumeClaimVolumeSource) (mountedVolume, error) {
	pvc, err := client.For[core.PersistentVolumeClaim](k.cfg.Client, pod.Namespace).Get(ctx, src.ClaimName)
	if err != nil {
		return mountedVolume{}, fmt.Errorf("claim %q: %w", src.ClaimName, err)
	}
	if pvc.Spec.VolumeName == "" {
		return mountedVolume{}, fmt.Errorf("claim %q is not bound", src.ClaimName)
	}
	pv, err := client.For[core.PersistentVolume](k.cfg.Client, "").Get(ctx, pvc.Spec.VolumeName)
	if err != nil {
		return mountedVolume{}, fmt.Errorf("volume %q of claim %q: %w", pvc.Spec.VolumeName, src.ClaimName, err)
	}
	var path string
	switch {
	case pv.Spec.HostPath != nil:
		// Checked and, for DirectoryOrCreate (the local-path
		// provisioner's volumes), created on this node, as a pod's own
		// hostPath volume is.
		mv, err := setUpHostPath(pv.Spec.HostPath)
		if err != nil {
			return mountedVolume{}, fmt.Errorf("volume %q: %w", pv.Name, err)
		}
		return mountedVolume{path: mv.path, readOnly: src.ReadOnly}, nil
	case pv.Spec.Local != nil:
		path = pv.Spec.Local.Path
	default:
		return mountedVolume{}, fmt.Errorf("volume %q is neither hostPath nor local", pv.Name)
	}
	if _, err := os.Stat(path); err != nil {
		return mountedVolume{}, fmt.Errorf("volume %q: %w", pv.Name, err)
	}
	return mountedVolume{path: path, readOnly: src.ReadOnly}, nil
}

// teardownVolumes unmounts the pod's tmpfs volumes; the directories go with
// the pod directory.
func (k *Kubelet) teardownVolumes(pod *core.Pod, ps *podState) error {
	if k.cfg.RootDir == "" {
		return nil
	}
	k.tokens.forget(string(pod.UID))
	k.podCerts.forget(string(pod.UID))
	unmountUnder(filepath.Join(k.podDir(string(pod.UID)), "volumes"))
	if ms := mountsUnder(k.podDir(string(pod.UID))); len(ms) > 0 {
		return fmt.Errorf("%w: mounts left under pod dir: %v", ErrVolume, ms)
	}
	ps.volumes = nil
	return nil
}

// containerMounts maps c's volumeMounts to CRI mounts; env (c's resolved
// env) expands subPathExpr.
func (k *Kubelet) containerMounts(pod *core.Pod, ps *podState, c *core.Container, env map[string]string) ([]cri.Mount, error) {
	if k.cfg.RootDir == "" {
		return nil, nil
	}
	var out []cri.Mount
	for _, vm := range c.VolumeMounts {
		mv, ok := ps.volumes[vm.Name]
		if !ok {
			return nil, fmt.Errorf("%w: volume %q is not ready", ErrVolume, vm.Name)
		}
		host := mv.path
		subPath := vm.SubPath
		if vm.SubPathExpr != "" {
			var err error
			if subPath, err = expandSubPath(vm.SubPathExpr, env); err != nil {
				return nil, fmt.Errorf("volumeMount %q: subPathExpr %q: %w", vm.Name, vm.SubPathExpr, err)
			}
		}
		if subPath != "" {
			if err := checkSubPath(subPath); err != nil {
				return nil, err
			}
		}
		var m cri.Mount
		switch {
		case mv.image != nil:
			m = imageMount(mv.image, vm, subPath)
		case subPath != "":
			host = filepath.Join(host, subPath)
			if err := os.MkdirAll(host, 0o777); err != nil && !errors.Is(err, syscall.ENOTDIR) {
				return nil, err
			}
			fallthrough
		default:
			m = cri.Mount{ContainerPath: vm.MountPath, HostPath: host, Readonly: vm.ReadOnly || mv.readOnly}
		}
		if vm.MountPropagation != nil {
			switch *vm.MountPropagation {
			case core.MountPropagationHostToContainer:
				m.Propagation = cri.PropagationHostToContainer
			case core.MountPropagationBidirectional:
				m.Propagation = cri.PropagationBidirectional
			}
		}
		out = append(out, m)
	}
	if !hasMountAt(out, etcHostsPath) {
		if err := k.writeEtcHosts(pod, ps); err != nil {
			return nil, err
		}
		out = append(out, cri.Mount{ContainerPath: etcHostsPath, HostPath: k.etcHostsFile(pod)})
	}
	if k.cfg.RootDir != "" && c.TerminationMessagePath != "" && !hasMountAt(out, c.TerminationMessagePath) {
		dir := filepath.Join(k.podDir(string(pod.UID)), "containers", c.Name)
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, err
		}
		// One file per container instance, so a restart does not clear
		// the message of the exit before it; writable by any user the
		// container runs as, whatever the umask.
		var id [8]byte
		if _, err := rand.Read(id[:]); err != nil {
			return nil, err
		}
		f := filepath.Join(dir, hex.EncodeToString(id[:]))
		if err := os.WriteFile(f, nil, 0o666); err != nil {
			return nil, err
		}
		if err := os.Chmod(f, 0o666); err != nil {
			return nil, err
		}
		out = append(out, cri.Mount{ContainerPath: c.TerminationMessagePath, HostPath: f})
	}
	return out, nil
}

// checkSubPath refuses an absolute subPath or one with a ".." element,
// as the kubelet does.
func checkSubPath(p string) error {
	if filepath.IsAbs(p) {
		return fmt.Errorf("%w: subPath %q must not be an absolute path", ErrVolume, p)
	}
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return fmt.Errorf("%w: subPath %q must not contain '..'", ErrVolume, p)
		}
	}
	return nil
}

func hasMountAt(ms []cri.Mount, p string) bool {
	for _, m := range ms {
		if m.ContainerPath == p {
			return true
		}
	}
	return false
}
