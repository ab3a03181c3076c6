package images

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"

	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Epoch is the fixed time of every file and of the image's creation date.
var Epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// annotationImageName is containerd's full-name annotation on index entries.
const annotationImageName = "io.containerd.image.name"

// Result describes a written image archive.
type Result struct {
	// Path is the archive's file (set by Builder.Build).
	Path string
	// Ref is the image reference the archive names.
	Ref string
	// Manifest is the manifest's digest: equal for equal inputs.
	Manifest digest.Digest
	// Config is the image config's digest (the image ID).
	Config digest.Digest
}

// blob is one content-addressed file of the layout.
type blob struct {
	desc ocispec.Descriptor
	data []byte
}

func newBlob(mediaType string, data []byte) blob {
	return blob{desc: ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))}, data: data}
}

func blobPath(d digest.Digest) string { return "blobs/" + d.Algorithm().String() + "/" + d.Encoded() }

// WriteArchive writes the OCI layout tarball of spec with the given program
// binary to w. Equal inputs give byte-identical output.
func WriteArchive(w io.Writer, spec Spec, binary []byte) (Result, error) {
	spec, err := spec.withDefaults()
	if err != nil {
		return Result{}, err
	}
	layer, err := layerTar(spec, binary)
	if err != nil {
		return Result{}, err
	}
	layerBlob := newBlob(ocispec.MediaTypeImageLayer, layer)
	cfgJSON, err := json.Marshal(imageConfig(spec, layerBlob.desc.Digest))
	if err != nil {
		return Result{}, fmt.Errorf("marshal image config: %w", err)
	}
	cfgBlob := newBlob(ocispec.MediaTypeImageConfig, cfgJSON)
	mfJSON, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    cfgBlob.desc,
		Layers:    []ocispec.Descriptor{layerBlob.desc},
	})
	if err != nil {
		return Result{}, fmt.Errorf("marshal manifest: %w", err)
	}
	mfBlob := newBlob(ocispec.MediaTypeImageManifest, mfJSON)
	files, err := layoutFiles(spec.Ref, mfBlob, cfgBlob, layerBlob)
	if err != nil {
		return Result{}, err
	}
	if err := writeTar(w, files); err != nil {
		return Result{}, err
	}
	return Result{Ref: spec.Ref, Manifest: mfBlob.desc.Digest, Config: cfgBlob.desc.Digest}, nil
}

// layoutFiles returns the archive's files (path → content): oci-layout,
// index.json, manifest.json and the blobs.
func layoutFiles(ref string, mf, cfg, layer blob) (map[string][]byte, error) {
	entry := mf.desc
	entry.Platform = &ocispec.Platform{Architecture: runtime.GOARCH, OS: "linux"}
	entry.Annotations = map[string]string{ocispec.AnnotationRefName: ref, annotationImageName: ref}
	index, err := json.Marshal(ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{entry},
	})
	if err != nil {
		return nil, fmt.Errorf("marshal index: %w", err)
	}
	docker, err := json.Marshal([]map[string]any{{
		"Config":   blobPath(cfg.desc.Digest),
		"RepoTags": []string{ref},
		"Layers":   []string{blobPath(layer.desc.Digest)},
	}})
	if err != nil {
		return nil, fmt.Errorf("marshal manifest.json: %w", err)
	}
	layout, _ := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	files := map[string][]byte{
		ocispec.ImageLayoutFile: layout,
		"index.json":            index,
		"manifest.json":         docker,
	}
	for _, b := range []blob{mf, cfg, layer} {
		files[blobPath(b.desc.Digest)] = b.data
	}
	return files, nil
}

// imageConfig is the OCI image config of spec over one layer.
func imageConfig(spec Spec, diffID digest.Digest) ocispec.Image {
	created := Epoch
	var ports map[string]struct{}
	if len(spec.ExposedPorts) > 0 {
		ports = make(map[string]struct{}, len(spec.ExposedPorts))
		for _, p := range spec.ExposedPorts {
			ports[p] = struct{}{}
		}
	}
	return ocispec.Image{
		Created:  &created,
		Platform: ocispec.Platform{Architecture: runtime.GOARCH, OS: "linux"},
		Config: ocispec.ImageConfig{
			Entrypoint: spec.Entrypoint, Cmd: spec.Cmd, Env: spec.Env, WorkingDir: spec.WorkingDir,
			ExposedPorts: ports, Labels: spec.Labels, StopSignal: "SIGTERM",
		},
		RootFS:  ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
		History: []ocispec.History{{Created: &created, CreatedBy: "orkit imagebuild " + spec.Package}},
	}
}

// layerFile is one entry of the image's single layer.
type layerFile struct {
	mode     int64
	data     []byte
	linkname string
	dir      bool
}

// layerTar returns the layer: the binary, its links, a minimal /etc and
// the usual mount points, sorted, with fixed owners and times.
func layerTar(spec Spec, binary []byte) ([]byte, error) {
	entries := map[string]layerFile{
		"dev": {mode: 0o755, dir: true}, "proc": {mode: 0o755, dir: true}, "sys": {mode: 0o755, dir: true},
		"tmp": {mode: 0o1777, dir: true}, "etc": {mode: 0o755, dir: true},
		"etc/passwd":      {mode: 0o644, data: []byte("root:x:0:0:root:/:/nonexistent\nnobody:x:65534:65534:nobody:/:/nonexistent\n")},
		"etc/group":       {mode: 0o644, data: []byte("root:x:0:\nnogroup:x:65534:\n")},
		"etc/hosts":       {mode: 0o644, data: []byte("127.0.0.1\tlocalhost\n")},
		"etc/hostname":    {mode: 0o644},
		"etc/resolv.conf": {mode: 0o644},
	}
	add := func(p string, f layerFile) error {
		rel := strings.TrimPrefix(p, "/")
		if _, dup := entries[rel]; dup {
			return fmt.Errorf("image path %q used twice: %w", p, ErrInvalidSpec)
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if e, ok := entries[d]; ok && !e.dir {
				return fmt.Errorf("image path %q is under a file: %w", p, ErrInvalidSpec)
			}
			entries[d] = layerFile{mode: 0o755, dir: true}
		}
		entries[rel] = f
		return nil
	}
	if err := add(spec.Binary, layerFile{mode: 0o755, data: binary}); err != nil {
		return nil, err
	}
	for _, l := range spec.Links {
		if err := add(l, layerFile{mode: 0o777, linkname: spec.Binary}); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range sortedKeys(entries) {
		if err := writeLayerEntry(tw, name, entries[name]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close layer: %w", err)
	}
	return buf.Bytes(), nil
}

func writeLayerEntry(tw *tar.Writer, name string, f layerFile) error {
	hdr := &tar.Header{Name: name, Mode: f.mode, ModTime: Epoch, Format: tar.FormatPAX}
	switch {
	case f.dir:
		hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
	case f.linkname != "":
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, f.linkname
	default:
		hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.data))
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("layer entry %q: %w", name, err)
	}
	if _, err := tw.Write(f.data); err != nil {
		return fmt.Errorf("layer entry %q: %w", name, err)
	}
	return nil
}

// writeTar writes files as a tar archive with their parent directories,
// sorted, with fixed owners and times.
func writeTar(w io.Writer, files map[string][]byte) error {
	tw := tar.NewWriter(w)
	dirs := map[string]bool{}
	for name := range files {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			dirs[d+"/"] = true
		}
	}
	all := sortedKeys(files)
	for d := range dirs {
		all = append(all, d)
	}
	sort.Strings(all)
	for _, name := range all {
		hdr := &tar.Header{Name: name, ModTime: Epoch, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if dirs[name] {
			hdr.Mode, hdr.Typeflag = 0o755, tar.TypeDir
		} else {
			hdr.Size = int64(len(files[name]))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("archive entry %q: %w", name, err)
		}
		if _, err := tw.Write(files[name]); err != nil {
			return fmt.Errorf("archive entry %q: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("close archive: %w", err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
