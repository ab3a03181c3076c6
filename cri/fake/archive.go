package fake

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/orkit/orkit/cri"
)

// Limits on imported archives.
const (
	maxIndexSize      = 1 << 20 // index.json / manifest.json
	maxArchiveEntries = 100000
)

// namedImage is one image an archive names, with its manifest digest
// ("" for docker-save archives).
type namedImage struct {
	ref    string
	digest string
}

// readArchive reads a tar stream and returns the images its index.json
// (OCI: the org.opencontainers.image.ref.name or io.containerd.image.name
// annotation of each manifest) or manifest.json (docker save: RepoTags)
// names. Errors wrap cri.ErrInvalidImage.
func readArchive(rd io.Reader) ([]namedImage, error) {
	tr := tar.NewReader(rd)
	var index, manifest []byte
	for n := 0; ; n++ {
		if n > maxArchiveEntries {
			return nil, fmt.Errorf("archive has more than %d entries: %w", maxArchiveEntries, cri.ErrInvalidImage)
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read archive: %v: %w", err, cri.ErrInvalidImage)
		}
		var dst *[]byte
		switch path.Clean(hdr.Name) {
		case "index.json":
			dst = &index
		case "manifest.json":
			dst = &manifest
		}
		if dst == nil {
			if _, err := io.Copy(io.Discard, tr); err != nil {
				return nil, fmt.Errorf("read archive: %v: %w", err, cri.ErrInvalidImage)
			}
			continue
		}
		if hdr.Size > maxIndexSize {
			return nil, fmt.Errorf("%s larger than %d bytes: %w", hdr.Name, maxIndexSize, cri.ErrInvalidImage)
		}
		if *dst, err = io.ReadAll(io.LimitReader(tr, maxIndexSize)); err != nil {
			return nil, fmt.Errorf("read %s: %v: %w", hdr.Name, err, cri.ErrInvalidImage)
		}
	}
	switch {
	case index != nil:
		return parseOCIIndex(index)
	case manifest != nil:
		return parseDockerManifest(manifest)
	}
	return nil, fmt.Errorf("archive has neither index.json nor manifest.json: %w", cri.ErrInvalidImage)
}

func parseOCIIndex(data []byte) ([]namedImage, error) {
	var idx struct {
		Manifests []struct {
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("index.json: %v: %w", err, cri.ErrInvalidImage)
	}
	var out []namedImage
	for i, m := range idx.Manifests {
		if !isImageID(m.Digest) {
			return nil, fmt.Errorf("index.json manifest %d: digest %.80q: %w", i, m.Digest, cri.ErrInvalidImage)
		}
		ref := m.Annotations["io.containerd.image.name"]
		if ref == "" {
			ref = m.Annotations["org.opencontainers.image.ref.name"]
		}
		if ref == "" {
			continue // unnamed: stored by digest only in a real runtime; nothing to name here
		}
		out = append(out, namedImage{ref: ref, digest: m.Digest})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("index.json names no image: %w", cri.ErrInvalidImage)
	}
	return out, nil
}

func parseDockerManifest(data []byte) ([]namedImage, error) {
	var entries []struct {
		Config   string   `json:"Config"`
		RepoTags []string `json:"RepoTags"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("manifest.json: %v: %w", err, cri.ErrInvalidImage)
	}
	var out []namedImage
	for _, e := range entries {
		for _, tag := range e.RepoTags {
			out = append(out, namedImage{ref: tag, digest: digestOf("docker-save", e.Config)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("manifest.json names no image: %w", cri.ErrInvalidImage)
	}
	return out, nil
}
