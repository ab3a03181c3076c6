package main

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTarArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    tarArgs
		wantErr string
	}{
		{"kubectl cp from a pod", []string{"cf", "-", "/tmp/foo"}, tarArgs{create: true, file: "-", dir: ".", paths: []string{"/tmp/foo"}, keepPerms: true}, ""},
		{"kubectl cp to a pod", []string{"-xmf", "-", "-C", "/tmp"}, tarArgs{extract: true, file: "-", dir: "/tmp", keepPerms: true}, ""},
		{"no-preserve", []string{"--no-same-permissions", "--no-same-owner", "-xmf", "-", "-C", "/d"}, tarArgs{extract: true, file: "-", dir: "/d"}, ""},
		{"both c and x", []string{"cxf", "-"}, tarArgs{}, "exactly one of c and x"},
		{"a file archive", []string{"xf", "a.tar"}, tarArgs{}, `only f - (stdin or stdout)`},
		{"compression", []string{"xzf", "-"}, tarArgs{}, "unsupported option z"},
		{"-C without dir", []string{"xf", "-", "-C"}, tarArgs{}, "-C needs a directory"},
		{"c without path", []string{"cf", "-"}, tarArgs{}, "at least one path"},
		{"unknown long option", []string{"--xattrs", "-xf", "-"}, tarArgs{}, "unsupported option --xattrs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTarArgs(tt.args)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTarRoundTrip(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "d", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "d", "a.txt"), []byte("alpha"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(src, "d", "sub", "b.txt"), []byte("beta"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(src, "d", "link")))
	var archive bytes.Buffer
	require.NoError(t, tarCreate(&archive, "/", []string{filepath.Join(src, "d")}))

	dst := t.TempDir()
	require.NoError(t, tarExtract(bytes.NewReader(archive.Bytes()), dst, true))
	prefix := filepath.Join(dst, src[1:], "d") // the leading "/" was removed
	b, err := os.ReadFile(filepath.Join(prefix, "sub", "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "beta", string(b))
	fi, err := os.Stat(filepath.Join(prefix, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	l, err := os.Readlink(filepath.Join(prefix, "link"))
	require.NoError(t, err)
	assert.Equal(t, "a.txt", l)
}

func TestTarExtractRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../evil", "a/../../evil", "/../evil"} {
		var archive bytes.Buffer
		tw := tar.NewWriter(&archive)
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}))
		tw.Write([]byte("x"))
		require.NoError(t, tw.Close())
		out := filepath.Join(t.TempDir(), "out")
		err := tarExtract(bytes.NewReader(archive.Bytes()), out, false)
		assert.ErrorContains(t, err, "leaves the target directory", name)
		assert.NoFileExists(t, filepath.Join(filepath.Dir(out), "evil"))
	}
}

func TestCmdTest(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	var errb bytes.Buffer
	assert.Equal(t, 0, cmdTest([]string{"-d", dir}, nil, &errb))
	assert.Equal(t, 1, cmdTest([]string{"-d", file}, nil, &errb))
	assert.Equal(t, 0, cmdTest([]string{"-f", file}, nil, &errb))
	assert.Equal(t, 1, cmdTest([]string{"-e", filepath.Join(dir, "nope")}, nil, &errb))
	assert.Equal(t, 1, cmdTest([]string{"-x", file}, nil, &errb))
}
