package fake

import (
	"archive/tar"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

func TestNormalizeRef(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"busybox", "busybox:latest", true},
		{"orkit.local/hello:v1", "orkit.local/hello:v1", true},
		{"127.0.0.1:5000/app", "127.0.0.1:5000/app:latest", true},
		{"localhost/a/b:c", "localhost/a/b:c", true},
		{"registry:5000/a", "registry:5000/a:latest", true},
		{"a/b@sha256:" + strings.Repeat("ab", 32), "a/b@sha256:" + strings.Repeat("ab", 32), true},
		{"sha256:" + strings.Repeat("0", 64), "sha256:" + strings.Repeat("0", 64), true},
		{"", "", false},
		{"Upper/case", "", false},
		{"a b", "", false},
		{"a:", "", false},
		{"a@sha256:short", "", false},
		{strings.Repeat("a", 600), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeRef(tt.in)
			if !tt.ok {
				require.ErrorIs(t, err, cri.ErrInvalidImage)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzNormalizeRef(f *testing.F) {
	for _, s := range []string{"busybox", "orkit.local/hello:v1", "127.0.0.1:5000/a/b@sha256:" + strings.Repeat("a", 64), "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		norm, err := normalizeRef(ref)
		if err != nil {
			require.ErrorIs(t, err, cri.ErrInvalidImage)
			return
		}
		again, err := normalizeRef(norm)
		require.NoError(t, err, "a normalized ref stays valid")
		require.Equal(t, norm, again, "normalizing is idempotent")
		require.NotContains(t, norm, " ")
	})
}

func FuzzReadArchive(f *testing.F) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	idx := `{"manifests":[{"digest":"sha256:` + strings.Repeat("1", 64) + `","annotations":{"org.opencontainers.image.ref.name":"a/b:c"}}]}`
	_ = tw.WriteHeader(&tar.Header{Name: "index.json", Mode: 0o644, Size: int64(len(idx))})
	_, _ = tw.Write([]byte(idx))
	_ = tw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, data []byte) {
		named, err := readArchive(bytes.NewReader(data))
		if err != nil {
			require.True(t, errors.Is(err, cri.ErrInvalidImage), "err %v", err)
			return
		}
		require.NotEmpty(t, named)
		r, err := New()
		require.NoError(t, err)
		// Import validates every name before storing any.
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, n := range named {
			if _, err := normalizeRef(n.ref); err == nil {
				_, err = r.addImageLocked(n.ref, n.digest)
				require.NoError(t, err)
			}
		}
	})
}
