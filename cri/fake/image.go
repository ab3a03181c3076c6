package fake

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/orkit/orkit/cri"
)

// image is one stored image: its CRI view and the names it answers to.
type image struct {
	img cri.Image
}

// refPattern is a Docker-style reference: an optional registry host (a
// name with a dot, "localhost", or any name with a port), lower-case path
// components, then a tag and/or a sha256 digest.
var refPattern = regexp.MustCompile(`^` +
	`(?:(?:(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?::[0-9]+)?|[A-Za-z0-9-]+:[0-9]+)/)?` +
	`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*` +
	`(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?` +
	`(?:@sha256:[a-f0-9]{64})?$`)

// maxRefLength bounds a reference, as the distribution spec's 255-character
// repository name plus tag and digest.
const maxRefLength = 512

// normalizeRef validates ref and adds ":latest" when it has neither tag nor
// digest. Image IDs ("sha256:<64 hex>") are returned unchanged. Errors wrap
// cri.ErrInvalidImage.
func normalizeRef(ref string) (string, error) {
	if isImageID(ref) {
		return ref, nil
	}
	if len(ref) > maxRefLength || !refPattern.MatchString(ref) {
		return "", fmt.Errorf("image reference %.80q: %w", ref, cri.ErrInvalidImage)
	}
	name := ref
	if i := strings.IndexByte(name, '@'); i >= 0 {
		return ref, nil
	}
	if i := strings.LastIndexByte(name, '/'); !strings.Contains(name[i+1:], ":") {
		return ref + ":latest", nil
	}
	return ref, nil
}

func isImageID(s string) bool {
	hexPart, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

// repoOf strips the tag or digest from a normalized reference.
func repoOf(ref string) string {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		return ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		return ref[:i]
	}
	return ref
}

func digestOf(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// addImageLocked stores ref (merging with an image of the same ID) and
// returns it. manifestDigest "" derives one from ref.
func (r *Runtime) addImageLocked(ref, manifestDigest string) (*image, error) {
	norm, err := normalizeRef(ref)
	if err != nil {
		return nil, err
	}
	if manifestDigest == "" {
		manifestDigest = digestOf("manifest", norm)
	}
	id := digestOf("config", manifestDigest)
	img := r.images[id]
	if img == nil {
		img = &image{img: cri.Image{ID: id, Size: 4 << 20}}
		r.images[id] = img
	}
	// A tag names one image: move it away from any other.
	for otherID, other := range r.images {
		if otherID != id && slices.Contains(other.img.RepoTags, norm) {
			other.img.RepoTags = slices.DeleteFunc(other.img.RepoTags, func(t string) bool { return t == norm })
		}
	}
	if !strings.Contains(norm, "@") && !slices.Contains(img.img.RepoTags, norm) {
		img.img.RepoTags = append(img.img.RepoTags, norm)
	}
	if d := repoOf(norm) + "@" + manifestDigest; !slices.Contains(img.img.RepoDigests, d) {
		img.img.RepoDigests = append(img.img.RepoDigests, d)
	}
	return img, nil
}

// resolveLocked finds an image by ID, tag or digest reference.
func (r *Runtime) resolveLocked(ref string) (*image, error) {
	norm, err := normalizeRef(ref)
	if err != nil {
		return nil, err
	}
	if img, ok := r.images[norm]; ok {
		return img, nil
	}
	for _, img := range r.images {
		if slices.Contains(img.img.RepoTags, norm) || slices.Contains(img.img.RepoDigests, norm) {
			return img, nil
		}
	}
	return nil, fmt.Errorf("image %q: %w", ref, cri.ErrImageNotFound)
}

func (img *image) clone() cri.Image {
	c := img.img
	c.RepoTags, c.RepoDigests = slices.Clone(c.RepoTags), slices.Clone(c.RepoDigests)
	return c
}

// PullImage "pulls" from the simulated registry: any well-formed ref
// (or those WithRegistry allows), with the credentials of WithRegistryAuth
// if set. It returns the image's digest reference.
func (r *Runtime) PullImage(ctx context.Context, spec cri.ImageSpec, auth *cri.AuthConfig) (string, error) {
	if err := r.enter(ctx, "PullImage"); err != nil {
		return "", err
	}
	norm, err := normalizeRef(spec.Image)
	if err != nil {
		return "", fmt.Errorf("pull: %w", err)
	}
	if isImageID(norm) {
		return "", fmt.Errorf("pull %q: an image ID cannot be pulled: %w", norm, cri.ErrInvalidImage)
	}
	if r.opts.registry != nil && !r.opts.registry(norm) {
		return "", fmt.Errorf("pull %q: repository or tag not in the registry: %w", norm, cri.ErrImageNotFound)
	}
	if want := r.opts.auth; want != nil && !authMatches(want, auth) {
		return "", fmt.Errorf("pull %q: %w", norm, cri.ErrUnauthorized)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	img, err := r.addImageLocked(norm, "")
	if err != nil {
		return "", err
	}
	for _, d := range img.img.RepoDigests {
		if strings.HasPrefix(d, repoOf(norm)+"@") {
			return d, nil
		}
	}
	return img.img.ID, nil
}

func authMatches(want, got *cri.AuthConfig) bool {
	if got == nil {
		return false
	}
	user, pass := got.Username, got.Password
	if got.Auth != "" {
		dec, err := base64.StdEncoding.DecodeString(got.Auth)
		if err != nil {
			return false
		}
		user, pass, _ = strings.Cut(string(dec), ":")
	}
	return user == want.Username && pass == want.Password
}

// ImageStatus returns the image or cri.ErrImageNotFound.
func (r *Runtime) ImageStatus(ctx context.Context, spec cri.ImageSpec) (cri.Image, error) {
	if err := r.enter(ctx, "ImageStatus"); err != nil {
		return cri.Image{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	img, err := r.resolveLocked(spec.Image)
	if err != nil {
		return cri.Image{}, err
	}
	return img.clone(), nil
}

// ListImages returns the images matching f, sorted by ID.
func (r *Runtime) ListImages(ctx context.Context, f cri.ImageFilter) ([]cri.Image, error) {
	if err := r.enter(ctx, "ListImages"); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Image.Image != "" {
		img, err := r.resolveLocked(f.Image.Image)
		if errors.Is(err, cri.ErrImageNotFound) {
			return []cri.Image{}, nil
		}
		if err != nil {
			return nil, err
		}
		return []cri.Image{img.clone()}, nil
	}
	out := make([]cri.Image, 0, len(r.images))
	for _, img := range r.images {
		out = append(out, img.clone())
	}
	slices.SortFunc(out, func(a, b cri.Image) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// RemoveImage removes the image with all its names. A missing image is
// fine; a malformed reference fails with cri.ErrInvalidImage.
func (r *Runtime) RemoveImage(ctx context.Context, spec cri.ImageSpec) error {
	if err := r.enter(ctx, "RemoveImage"); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	img, err := r.resolveLocked(spec.Image)
	if errors.Is(err, cri.ErrImageNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	delete(r.images, img.img.ID)
	return nil
}

// ImportImage stores the images an OCI layout archive (index.json) or a
// docker-save archive (manifest.json) names. Layers are read and
// discarded. A malformed archive fails with cri.ErrInvalidImage and stores
// nothing.
func (r *Runtime) ImportImage(ctx context.Context, rd io.Reader) ([]cri.Image, error) {
	if err := r.enter(ctx, "ImportImage"); err != nil {
		return nil, err
	}
	named, err := readArchive(rd)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range named { // validate everything before storing anything
		if _, err := normalizeRef(n.ref); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	out := make([]cri.Image, 0, len(named))
	for _, n := range named {
		img, err := r.addImageLocked(n.ref, n.digest)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		out = append(out, img.clone())
	}
	return out, nil
}
