package containerd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/mount"
	"github.com/containerd/containerd/snapshots"
	"github.com/moby/sys/mountinfo"
	"github.com/opencontainers/image-spec/identity"
	"golang.org/x/sys/unix"

	"github.com/orkit/orkit/cri"
)

// Image volumes (cri.Mount.Image), as containerd's CRI mounts them: the
// image's layers as one read-only snapshot view, mounted once per sandbox
// and image at <sandbox dir>/image-volumes/<manifest digest>, bound
// read-only into each container that asks, released with the sandbox.
const (
	imageVolumesDir = "image-volumes"
	// labelImageVolumeSandbox marks a view snapshot with its sandbox, so
	// views a crash left behind are found (removeOrphanImageViews).
	labelImageVolumeSandbox = "io.orkit.imagevolume.sandbox"
	// labelGCRoot keeps containerd's garbage collector off the view while
	// the sandbox holds it.
	labelGCRoot = "containerd.io/gc.root"
)

// imageVolumeKey is the snapshot key of sandbox sb's view of an image.
func imageVolumeKey(sb, manifest string) string { return "orkit-imagevolume/" + sb + "/" + manifest }

// resolveImageMounts returns ms with each image mount's HostPath set to
// the mounted image (or the directory ImageSubPath names in it). The
// caller holds the sandbox's lock.
func (r *Runtime) resolveImageMounts(ctx context.Context, sb sandboxInfo, ms []cri.Mount) ([]cri.Mount, error) {
	out := make([]cri.Mount, len(ms))
	for i, m := range ms {
		out[i] = m
		if m.Image == nil {
			continue
		}
		root, err := r.mountImageVolume(ctx, sb.id, m.Image.Image)
		if err != nil {
			return nil, fmt.Errorf("image volume %s at %s: %w", m.Image.Image, m.ContainerPath, err)
		}
		host, err := imageSubDir(root, m.ImageSubPath)
		if err != nil {
			return nil, fmt.Errorf("image volume %s at %s: %w", m.Image.Image, m.ContainerPath, err)
		}
		out[i].HostPath, out[i].Readonly = host, true
	}
	return out, nil
}

// mountImageVolume mounts the image's content read-only for sandbox sb
// (once: a second container of the pod reuses the mount) and returns the
// mount point.
func (r *Runtime) mountImageVolume(ctx context.Context, sb, ref string) (_ string, retErr error) {
	img, err := r.localImage(ctx, ref)
	if err != nil {
		return "", err
	}
	manifest := img.Target().Digest.Encoded()
	target := filepath.Join(r.sandboxDir(sb), imageVolumesDir, manifest)
	if ok, err := mountinfo.Mounted(target); err == nil && ok {
		return target, nil
	}
	mounts, err := r.imageView(ctx, sb, img)
	if err != nil {
		return "", err
	}
	key := imageVolumeKey(sb, manifest)
	defer func() {
		if retErr != nil {
			cctx, cancel := cleanupCtx(r.cfg.namespace)
			defer cancel()
			_ = r.client.SnapshotService(r.cfg.snapshotter).Remove(cctx, key)
		}
	}()
	if err := os.MkdirAll(target, 0o755); err != nil {
		return "", fmt.Errorf("image volume dir: %w", err)
	}
	for i := range mounts {
		mounts[i].Options = readOnly(mounts[i].Options)
	}
	if err := mount.All(mounts, target); err != nil {
		_ = mount.UnmountAll(target, unix.MNT_DETACH)
		return "", fmt.Errorf("mount image %s at %s: %w", ref, target, err)
	}
	return target, nil
}

// imageView returns the mounts of sandbox sb's read-only view of img's
// layers, creating the view (a view a crash left is reused).
func (r *Runtime) imageView(ctx context.Context, sb string, img containerd.Image) ([]mount.Mount, error) {
	diffIDs, err := img.RootFS(ctx)
	if err != nil {
		return nil, mapErr(err, "layers of image "+img.Name())
	}
	key := imageVolumeKey(sb, img.Target().Digest.Encoded())
	ss := r.client.SnapshotService(r.cfg.snapshotter)
	labels := map[string]string{labelImageVolumeSandbox: sb, labelGCRoot: time.Now().UTC().Format(time.RFC3339)}
	mounts, err := ss.View(ctx, key, identity.ChainID(diffIDs).String(), snapshots.WithLabels(labels))
	if errdefs.IsAlreadyExists(err) {
		mounts, err = ss.Mounts(ctx, key)
	}
	if err != nil {
		return nil, mapErr(err, "view of image "+img.Name())
	}
	return mounts, nil
}

// readOnly adds "ro" to mount options that lack it (a single-layer view is
// a bind mount, which the kernel mounts writable unless told).
func readOnly(opts []string) []string {
	out := make([]string, 0, len(opts)+1)
	for _, o := range opts {
		if o != "rw" && o != "ro" {
			out = append(out, o)
		}
	}
	return append(out, "ro")
}

// imageSubDir resolves sub inside the mounted image root: it must be a
// directory and may not leave root, also not through a symlink. The result
// is the resolved host path (the content is read-only, so it cannot change
// between this check and the container's start).
func imageSubDir(root, sub string) (string, error) {
	if sub == "" {
		return root, nil
	}
	f, err := os.OpenInRoot(root, sub)
	if err != nil {
		return "", fmt.Errorf("subPath %q: %w", sub, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("subPath %q: %w", sub, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("subPath %q is not a directory (only directories of an image can be mounted): %w", sub, cri.ErrInvalidArgument)
	}
	real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		return "", fmt.Errorf("subPath %q: %w", sub, err)
	}
	if real != root && !strings.HasPrefix(real, root+"/") {
		return "", fmt.Errorf("subPath %q resolves outside the image (%s): %w", sub, real, cri.ErrInvalidArgument)
	}
	return real, nil
}

// releaseImageVolumes unmounts sandbox sb's image volumes and removes
// their views and directory. The caller holds the sandbox's lock (or owns
// the ID, as RunPodSandbox and orphan removal do).
func (r *Runtime) releaseImageVolumes(ctx context.Context, sb string) error {
	base := filepath.Join(r.sandboxDir(sb), imageVolumesDir)
	entries, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("image volumes of sandbox %s: %w", sb, err)
	}
	var errs []error
	for _, e := range entries {
		target := filepath.Join(base, e.Name())
		if err := mount.UnmountAll(target, 0); err != nil {
			if err := mount.UnmountAll(target, unix.MNT_DETACH); err != nil {
				errs = append(errs, fmt.Errorf("unmount image volume %s: %w", target, err))
				continue
			}
		}
		if err := os.Remove(target); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("image volume dir: %w", err))
		}
	}
	errs = append(errs, r.removeImageViews(ctx, func(owner string) bool { return owner == sb }))
	return errors.Join(errs...)
}

// removeImageViews removes the image volume views whose sandbox matches.
func (r *Runtime) removeImageViews(ctx context.Context, match func(sandbox string) bool) error {
	ss := r.client.SnapshotService(r.cfg.snapshotter)
	var keys []string
	err := ss.Walk(ctx, func(_ context.Context, info snapshots.Info) error {
		if owner, ok := info.Labels[labelImageVolumeSandbox]; ok && match(owner) {
			keys = append(keys, info.Name)
		}
		return nil
	}, fmt.Sprintf("labels.%q", labelImageVolumeSandbox))
	if err != nil {
		return mapErr(err, "list image volume views")
	}
	var errs []error
	for _, k := range keys {
		if err := ss.Remove(ctx, k); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, mapErr(err, "remove image volume view "+k))
		}
	}
	return errors.Join(errs...)
}
