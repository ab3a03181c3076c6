package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
	"github.com/orkit/orkit/cri/fake"
	"github.com/orkit/orkit/images"
)

func readTar(t *testing.T, data []byte) ([]string, map[string][]byte, map[string]*tar.Header) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	var names []string
	files := map[string][]byte{}
	hdrs := map[string]*tar.Header{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		names = append(names, hdr.Name)
		files[hdr.Name] = b
		hdrs[hdr.Name] = hdr
	}
	return names, files, hdrs
}

func TestWriteArchiveDeterministic(t *testing.T) {
	spec := images.HelloSpec()
	var a, b, c bytes.Buffer
	ra, err := images.WriteArchive(&a, spec, []byte("binary-1"))
	require.NoError(t, err)
	rb, err := images.WriteArchive(&b, spec, []byte("binary-1"))
	require.NoError(t, err)
	rc, err := images.WriteArchive(&c, spec, []byte("binary-2"))
	require.NoError(t, err)
	assert.Equal(t, a.Bytes(), b.Bytes(), "same input, same bytes")
	assert.Equal(t, ra, rb)
	assert.NotEqual(t, ra.Manifest, rc.Manifest, "different binary, different digest")
}

func TestWriteArchiveLayout(t *testing.T) {
	var buf bytes.Buffer
	res, err := images.WriteArchive(&buf, images.HelloSpec(), []byte("prog"))
	require.NoError(t, err)
	names, files, hdrs := readTar(t, buf.Bytes())
	assert.IsNonDecreasing(t, names, "entries sorted")
	for _, h := range hdrs {
		assert.True(t, h.ModTime.Equal(images.Epoch), "%s mtime %v", h.Name, h.ModTime)
		assert.Zero(t, h.Uid)
	}
	var idx ocispec.Index
	require.NoError(t, json.Unmarshal(files["index.json"], &idx))
	require.Len(t, idx.Manifests, 1)
	assert.Equal(t, "orkit.local/hello:v1", idx.Manifests[0].Annotations[ocispec.AnnotationRefName])
	assert.Equal(t, res.Manifest, idx.Manifests[0].Digest)
	var mf ocispec.Manifest
	require.NoError(t, json.Unmarshal(files["blobs/sha256/"+res.Manifest.Encoded()], &mf))
	assert.Equal(t, res.Config, mf.Config.Digest)
	var cfg ocispec.Image
	require.NoError(t, json.Unmarshal(files["blobs/sha256/"+res.Config.Encoded()], &cfg))
	assert.Equal(t, []string{"/hello"}, cfg.Config.Entrypoint)
	assert.Contains(t, cfg.Config.ExposedPorts, "8080/tcp")
	require.Len(t, mf.Layers, 1)
	assert.Equal(t, mf.Layers[0].Digest, cfg.RootFS.DiffIDs[0], "uncompressed layer: digest is the diff ID")
	lnames, lfiles, lhdrs := readTar(t, files["blobs/sha256/"+mf.Layers[0].Digest.Encoded()])
	assert.IsNonDecreasing(t, lnames)
	assert.Equal(t, []byte("prog"), lfiles["hello"])
	assert.Equal(t, int64(0o755), lhdrs["hello"].Mode)
	assert.Equal(t, "/hello", lhdrs["bin/wget"].Linkname)
	assert.Equal(t, int64(0o1777), lhdrs["tmp/"].Mode)
	assert.Contains(t, files, "manifest.json")
	assert.Contains(t, files, "oci-layout")
}

func TestWriteArchiveInvalid(t *testing.T) {
	tests := []struct {
		name string
		spec images.Spec
	}{
		{"no ref", images.Spec{Package: "./x"}},
		{"no package", images.Spec{Ref: "a/b:c"}},
		{"relative binary", images.Spec{Ref: "a/b:c", Package: "./x", Binary: "x"}},
		{"dotdot link", images.Spec{Ref: "a/b:c", Package: "./x", Links: []string{"/bin/../../x"}}},
		{"link twice", images.Spec{Ref: "a/b:c", Package: "./x", Links: []string{"/bin/a", "/bin/a"}}},
		{"link under binary", images.Spec{Ref: "a/b:c", Package: "./x", Links: []string{"/x/y"}}},
		{"link is etc file", images.Spec{Ref: "a/b:c", Package: "./x", Links: []string{"/etc/passwd"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := images.WriteArchive(&buf, tt.spec, []byte("p"))
			assert.ErrorIs(t, err, images.ErrInvalidSpec)
			assert.Zero(t, buf.Len(), "nothing written")
		})
	}
}

func TestBuildCachedAndReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	ctx := context.Background()
	cacheA, cacheB := t.TempDir(), t.TempDir()
	ba, err := images.New("", cacheA)
	require.NoError(t, err)
	bb, err := images.New("", cacheB)
	require.NoError(t, err)
	r1, err := ba.Build(ctx, images.PauseSpec())
	require.NoError(t, err)
	st1, err := os.Stat(r1.Path)
	require.NoError(t, err)
	r2, err := ba.Build(ctx, images.PauseSpec())
	require.NoError(t, err)
	st2, err := os.Stat(r2.Path)
	require.NoError(t, err)
	assert.Equal(t, r1, r2)
	assert.True(t, os.SameFile(st1, st2) && st1.ModTime().Equal(st2.ModTime()), "second build served from cache")
	r3, err := bb.Build(ctx, images.PauseSpec())
	require.NoError(t, err)
	assert.Equal(t, r1.Manifest, r3.Manifest, "independent builds give the same digest")
	a, _ := os.ReadFile(r1.Path)
	b, _ := os.ReadFile(r3.Path)
	assert.True(t, bytes.Equal(a, b))
	assert.Equal(t, filepath.Dir(r3.Path), cacheB)
}

func TestBuildErrors(t *testing.T) {
	_, err := images.FindModuleRoot("/")
	assert.ErrorIs(t, err, images.ErrNoModule)
	b, err := images.New("", t.TempDir())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = b.Build(ctx, images.Spec{Ref: "x/y:z", Package: "github.com/orkit/orkit/images/doesnotexist"})
	assert.ErrorIs(t, err, images.ErrBuild)
}

func ExampleWriteArchive() {
	var buf bytes.Buffer
	res, err := images.WriteArchive(&buf, images.Spec{Ref: "orkit.local/demo:v1", Package: "./demo"}, []byte("#!"))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Ref, res.Manifest.Algorithm())
	// Output: orkit.local/demo:v1 sha256
}

// TestBuildAndImport: the bundled images built by import path land in a
// runtime under their refs (cri/fake reads the same archives containerd
// does).
func TestBuildAndImport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	ctx := context.Background()
	b, err := images.New("", t.TempDir())
	require.NoError(t, err)
	rt, err := fake.New()
	require.NoError(t, err)
	res, err := b.BuildAndImport(ctx, rt, images.Bundled()...)
	require.NoError(t, err)
	require.Len(t, res, 2)
	for _, ref := range []string{images.PauseRef, images.HelloRef} {
		img, err := rt.ImageStatus(ctx, cri.ImageSpec{Image: ref})
		require.NoError(t, err, ref)
		assert.Contains(t, img.RepoTags, ref)
	}
	_, err = b.BuildAndImport(ctx, failingImporter{}, images.PauseSpec())
	assert.ErrorContains(t, err, "import "+images.PauseRef)
}

type failingImporter struct{}

func (failingImporter) ImportImage(context.Context, io.Reader) ([]cri.Image, error) {
	return nil, cri.ErrInvalidImage
}

// TestFindModuleRoot: the nearest go.mod, whatever its module.
func TestFindModuleRoot(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/embedder\n"), 0o644))
	sub := filepath.Join(dir, "cmd", "x")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	got, err := images.FindModuleRoot(sub)
	require.NoError(t, err)
	assert.Equal(t, dir, got)
}
