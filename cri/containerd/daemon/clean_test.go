package daemon

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnescapeMount(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/a/b", "/a/b"},
		{`/a\040b`, "/a b"},
		{`/a\011b\134`, "/a\tb\\"},
		{`/trailing\04`, `/trailing\04`},
		{`/bad\999`, `/bad\999`},
		{`\`, `\`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, unescapeMount(tt.in)) })
	}
}

func FuzzUnescapeMount(f *testing.F) {
	for _, s := range []string{"/a b", `/a\040b`, `\`, `\12`, `\1234`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := unescapeMount(s)
		if len(out) > len(s) {
			t.Fatalf("unescape grew %q to %q", s, out)
		}
		if !strings.Contains(s, `\`) && out != s {
			t.Fatalf("changed %q without escapes", s)
		}
	})
}

func TestHasArgPair(t *testing.T) {
	args := []string{"shim", "-namespace", "x", "-address", "/tmp/a.sock"}
	assert.True(t, hasArgPair(args, "-address", "/tmp/a.sock"))
	assert.False(t, hasArgPair(args, "-address", "/tmp/b.sock"))
	assert.False(t, hasArgPair([]string{"-address"}, "-address", ""))
}

func TestConfigTOML(t *testing.T) {
	c := configTOML("/tmp/okd-1")
	assert.Contains(t, c, `root = "/tmp/okd-1/root"`)
	assert.Contains(t, c, `"io.containerd.grpc.v1.cri"`)
	assert.Contains(t, c, `address = "/tmp/okd-1/containerd.sock"`)
}

func TestSweepStale(t *testing.T) {
	parent := t.TempDir()
	mk := func(name, owner string) string {
		dir := parent + "/" + name
		if err := os.MkdirAll(dir+"/root", 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(dir+"/"+ownerPIDFile, []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	stale := mk("okd-stale", "999999999")
	live := mk("okd-live", strconv.Itoa(os.Getpid()))
	noOwner := mk("okd-unknown", "")
	other := mk("other-stale", "999999999")
	assert.NoError(t, SweepStale(parent, "okd-"))
	assert.NoDirExists(t, stale)
	assert.DirExists(t, live)
	assert.DirExists(t, noOwner)
	assert.DirExists(t, other)
}
