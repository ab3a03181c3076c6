package kubelet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
)

func TestParseCRILogLine(t *testing.T) {
	cases := []struct {
		in      string
		ok      bool
		stream  string
		partial bool
		content string
	}{
		{"2026-01-02T03:04:05.123456789Z stdout F hello world", true, "stdout", false, "hello world"},
		{"2026-01-02T03:04:05Z stderr P part", true, "stderr", true, "part"},
		{"2026-01-02T03:04:05Z stdout F", true, "stdout", false, ""},
		{"2026-01-02T03:04:05Z stdout F  leading space", true, "stdout", false, " leading space"},
		{"garbage", false, "", false, ""},
		{"2026-01-02 stdout F x", false, "", false, ""},
		{"2026-01-02T03:04:05Z stdin F x", false, "", false, ""},
		{"2026-01-02T03:04:05Z stdout X x", false, "", false, ""},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			l, err := parseCRILogLine([]byte(c.in))
			if !c.ok {
				assert.ErrorIs(t, err, ErrLogs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.stream, l.stream)
			assert.Equal(t, c.partial, l.partial)
			assert.Equal(t, c.content, string(l.content))
		})
	}
}

func FuzzParseCRILogLine(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05Z stdout F x", "2026-01-02T03:04:05Z stderr P ", "", " ", "a b c d"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := parseCRILogLine(b)
		if err == nil && len(l.content) > len(b) {
			t.Fatalf("content longer than the line")
		}
	})
}

func writeLog(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "0.log")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644))
	return p
}

func TestCopyCRILog(t *testing.T) {
	path := writeLog(t,
		"2026-01-02T03:04:05.000000001Z stdout F one\n",
		"2026-01-02T03:04:06Z stderr P tw\n",
		"2026-01-02T03:04:06Z stderr F o\n",
		"this line is malformed and skipped\n",
		"2026-01-02T03:04:07Z stdout F three\n",
	)
	never := func() bool { return false }
	tail := func(n int64) *int64 { return &n }
	cases := []struct {
		name string
		opts core.PodLogOptions
		want string
	}{
		{"all", core.PodLogOptions{}, "one\ntwo\nthree\n"},
		{"tail 1", core.PodLogOptions{TailLines: tail(1)}, "three\n"},
		{"tail 0", core.PodLogOptions{TailLines: tail(0)}, ""},
		{"tail more than lines", core.PodLogOptions{TailLines: tail(100)}, "one\ntwo\nthree\n"},
		{"timestamps", core.PodLogOptions{TailLines: tail(1), Timestamps: true}, "2026-01-02T03:04:07Z three\n"},
		{"limit bytes", core.PodLogOptions{LimitBytes: tail(5)}, "one\nt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, copyCRILog(context.Background(), path, c.opts, &b, never))
			assert.Equal(t, c.want, b.String())
		})
	}
	var b bytes.Buffer
	assert.ErrorIs(t, copyCRILog(context.Background(), filepath.Join(t.TempDir(), "missing"), core.PodLogOptions{}, &b, never), ErrLogs)
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.buf.String()
}

func TestCopyCRILogFollow(t *testing.T) {
	path := writeLog(t, "2026-01-02T03:04:05Z stdout F first\n")
	var run atomic.Bool
	run.Store(true)
	out := &syncBuffer{mu: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() {
		done <- copyCRILog(context.Background(), path, core.PodLogOptions{Follow: true}, out, run.Load)
	}()
	waitFor(t, 5*time.Second, "first line", func() bool { return out.String() == "first\n" })
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("2026-01-02T03:04:06Z stdout F second\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	waitFor(t, 5*time.Second, "second line", func() bool { return out.String() == "first\nsecond\n" })
	run.Store(false)
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not end when the container stopped")
	}
}
