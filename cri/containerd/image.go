package containerd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/images"
	"github.com/containerd/containerd/remotes/docker"
	remoteerrors "github.com/containerd/containerd/remotes/errors"
	"github.com/distribution/reference"
	digest "github.com/opencontainers/go-digest"

	"github.com/orkit/orkit/cri"
)

// NormalizeImageRef returns the full reference of name ("busybox" →
// "docker.io/library/busybox:latest"); an image ID ("sha256:...") is
// returned as is. The error wraps cri.ErrInvalidImage.
func NormalizeImageRef(name string) (string, error) {
	if _, err := digest.Parse(name); err == nil {
		return name, nil
	}
	named, err := reference.ParseDockerRef(name)
	if err != nil {
		return "", fmt.Errorf("image %q: %v: %w", name, err, cri.ErrInvalidImage)
	}
	return named.String(), nil
}

// imageRef is the digested reference of an image ("repo@sha256:...").
func imageRef(img containerd.Image) string {
	name := img.Name()
	if named, err := reference.ParseNormalizedNamed(name); err == nil {
		name = reference.TrimNamed(named).String()
	}
	return name + "@" + img.Target().Digest.String()
}

// localImage finds an image on the node by reference, digested reference
// or ID, and makes sure it is unpacked into the snapshotter.
func (r *Runtime) localImage(ctx context.Context, name string) (containerd.Image, error) {
	ref, err := NormalizeImageRef(name)
	if err != nil {
		return nil, err
	}
	var img containerd.Image
	if strings.HasPrefix(ref, "sha256:") {
		img, err = r.imageByID(ctx, ref)
	} else {
		img, err = r.client.GetImage(ctx, ref)
	}
	if errdefs.IsNotFound(err) {
		return nil, fmt.Errorf("image %s not on the node: %w", name, cri.ErrImageNotFound)
	}
	if err != nil {
		return nil, mapErr(err, "image "+name)
	}
	key := img.Target().Digest.String()
	if _, done := r.unpacked.Load(key); done {
		return img, nil
	}
	ok, err := img.IsUnpacked(ctx, r.cfg.snapshotter)
	if err == nil && !ok {
		err = img.Unpack(ctx, r.cfg.snapshotter)
	}
	if err != nil {
		return nil, mapErr(err, "unpack image "+name)
	}
	r.unpacked.Store(key, true)
	return img, nil
}

// imageByID returns an image whose config digest is id.
func (r *Runtime) imageByID(ctx context.Context, id string) (containerd.Image, error) {
	imgs, err := r.client.ListImages(ctx)
	if err != nil {
		return nil, err
	}
	for _, img := range imgs {
		if cfg, err := img.Config(ctx); err == nil && cfg.Digest.String() == id {
			return img, nil
		}
	}
	return nil, fmt.Errorf("image id %s: %w", id, errdefs.ErrNotFound)
}

// PullImage pulls and unpacks an image. Plain HTTP is used only for
// registries on localhost / 127.0.0.0/8 / ::1.
func (r *Runtime) PullImage(ctx context.Context, spec cri.ImageSpec, auth *cri.AuthConfig) (string, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return "", err
	}
	ref, err := NormalizeImageRef(spec.Image)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(ref, "sha256:") {
		return "", fmt.Errorf("cannot pull by image id %s: %w", ref, cri.ErrInvalidImage)
	}
	ropts := docker.ResolverOptions{Hosts: r.registryHosts(auth)}
	if auth != nil && auth.RegistryToken != "" {
		ropts.Headers = http.Header{"Authorization": {"Bearer " + auth.RegistryToken}}
	}
	resolver := docker.NewResolver(ropts)
	img, err := r.client.Pull(ctx, ref, containerd.WithResolver(resolver), containerd.WithPullUnpack,
		containerd.WithPullSnapshotter(r.cfg.snapshotter), containerd.WithMaxConcurrentDownloads(3))
	if err != nil {
		return "", pullErr(ref, err)
	}
	return imageRef(img), nil
}

// registryHosts resolves a registry host to where its images are pulled
// from: the registry itself, or only its mirror (WithRegistryMirror).
func (r *Runtime) registryHosts(auth *cri.AuthConfig) docker.RegistryHosts {
	hosts := docker.ConfigureDefaultRegistries(
		docker.WithPlainHTTP(isLoopbackHost),
		docker.WithAuthorizer(docker.NewDockerAuthorizer(docker.WithAuthCreds(credentials(auth)))),
	)
	return func(host string) ([]docker.RegistryHost, error) {
		if m, ok := r.cfg.mirrors[host]; ok {
			return hosts(m)
		}
		return hosts(host)
	}
}

// credentials returns the docker authorizer's credential callback for auth.
func credentials(auth *cri.AuthConfig) func(host string) (string, string, error) {
	return func(host string) (string, string, error) {
		if auth == nil {
			return "", "", nil
		}
		if auth.IdentityToken != "" {
			return "", auth.IdentityToken, nil
		}
		if auth.Username != "" || auth.Password != "" {
			return auth.Username, auth.Password, nil
		}
		if auth.Auth != "" {
			return decodeAuth(auth.Auth)
		}
		return "", "", nil
	}
}

// isLoopbackHost reports whether a registry host (with optional port) is
// on the loopback interface: the only place plain HTTP is allowed.
func isLoopbackHost(host string) (bool, error) {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback(), nil
}

// pullErr maps a pull failure to cri sentinels with a clear message.
func pullErr(ref string, err error) error {
	var status remoteerrors.ErrUnexpectedStatus
	switch {
	case errors.Is(err, docker.ErrInvalidAuthorization),
		errors.As(err, &status) && (status.StatusCode == 401 || status.StatusCode == 403):
		return fmt.Errorf("pull %s: the registry refused the credentials: %v: %w", ref, err, cri.ErrUnauthorized)
	case errdefs.IsNotFound(err):
		return fmt.Errorf("pull %s: %v: %w", ref, err, cri.ErrImageNotFound)
	}
	return mapErr(err, "pull "+ref)
}

// ImageStatus reports an image on the node.
func (r *Runtime) ImageStatus(ctx context.Context, spec cri.ImageSpec) (cri.Image, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return cri.Image{}, err
	}
	imgs, err := r.ListImages(ctx, cri.ImageFilter{Image: spec})
	if err != nil {
		return cri.Image{}, err
	}
	if len(imgs) == 0 {
		return cri.Image{}, fmt.Errorf("image %s: %w", spec.Image, cri.ErrImageNotFound)
	}
	return imgs[0], nil
}

// ListImages lists images (all names of one config digest are one Image).
func (r *Runtime) ListImages(ctx context.Context, f cri.ImageFilter) ([]cri.Image, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return nil, err
	}
	want := ""
	if f.Image.Image != "" {
		if want, err = NormalizeImageRef(f.Image.Image); err != nil {
			return nil, err
		}
	}
	list, err := r.client.ListImages(ctx)
	if err != nil {
		return nil, mapErr(err, "list images")
	}
	byID := map[string]*cri.Image{}
	var order []string
	for _, img := range list {
		cfg, err := img.Config(ctx)
		if err != nil {
			continue // content missing (e.g. partial pull)
		}
		id := cfg.Digest.String()
		e := byID[id]
		if e == nil {
			size, _ := img.Size(ctx)
			e = &cri.Image{ID: id, Size: uint64(size)}
			byID[id] = e
			order = append(order, id)
		}
		addImageName(e, img.Name(), img.Target().Digest)
	}
	out := make([]cri.Image, 0, len(order))
	for _, id := range order {
		e := *byID[id]
		if want != "" && !imageMatches(e, want) {
			continue
		}
		sort.Strings(e.RepoTags)
		sort.Strings(e.RepoDigests)
		out = append(out, e)
	}
	return out, nil
}

func addImageName(e *cri.Image, name string, target digest.Digest) {
	named, err := reference.ParseNormalizedNamed(name)
	if err != nil {
		return
	}
	if _, ok := named.(reference.Digested); !ok {
		e.RepoTags = appendUnique(e.RepoTags, name)
	}
	e.RepoDigests = appendUnique(e.RepoDigests, reference.TrimNamed(named).String()+"@"+target.String())
}

func imageMatches(e cri.Image, want string) bool {
	if e.ID == want {
		return true
	}
	for _, n := range append(append([]string{}, e.RepoTags...), e.RepoDigests...) {
		if n == want {
			return true
		}
	}
	return false
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// RemoveImage removes every name of the image.
func (r *Runtime) RemoveImage(ctx context.Context, spec cri.ImageSpec) error {
	img, err := r.ImageStatus(ctx, spec)
	if errors.Is(err, cri.ErrImageNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	ctx, err = r.nsctx(ctx)
	if err != nil {
		return err
	}
	is := r.client.ImageService()
	names := append(append([]string{}, img.RepoTags...), img.RepoDigests...)
	for i, n := range names {
		var opts []images.DeleteOpt
		if i == len(names)-1 {
			opts = append(opts, images.SynchronousDelete())
		}
		if err := is.Delete(ctx, n, opts...); err != nil && !errdefs.IsNotFound(err) {
			return mapErr(err, "remove image "+n)
		}
	}
	return nil
}

// ImportImage imports an OCI layout (or docker-save) archive, unpacks its
// images and returns them.
func (r *Runtime) ImportImage(ctx context.Context, rd io.Reader) ([]cri.Image, error) {
	ctx, err := r.nsctx(ctx)
	if err != nil {
		return nil, err
	}
	got, err := r.client.Import(ctx, rd)
	if err != nil {
		return nil, fmt.Errorf("import image archive: %v: %w", err, cri.ErrInvalidImage)
	}
	var out []cri.Image
	for _, gi := range got {
		img := containerd.NewImage(r.client, gi)
		if err := img.Unpack(ctx, r.cfg.snapshotter); err != nil {
			return nil, fmt.Errorf("unpack imported image %s: %v: %w", gi.Name, err, cri.ErrInvalidImage)
		}
		st, err := r.ImageStatus(ctx, cri.ImageSpec{Image: gi.Name})
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
