package containerd

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

func TestIDsAreStableAndDistinct(t *testing.T) {
	m := cri.PodSandboxMetadata{Name: "a", UID: "u", Namespace: "ns"}
	assert.Equal(t, sandboxID(m), sandboxID(m))
	m2 := m
	m2.Attempt = 1
	assert.NotEqual(t, sandboxID(m), sandboxID(m2))
	// Field boundaries matter: ("ab","c") differs from ("a","bc").
	assert.NotEqual(t, sandboxID(cri.PodSandboxMetadata{Name: "ab", UID: "c", Namespace: "x"}),
		sandboxID(cri.PodSandboxMetadata{Name: "a", UID: "bc", Namespace: "x"}))
	assert.Len(t, containerID("s", cri.ContainerMetadata{Name: "c"}), 32)
}

func TestExitLabelsRoundTrip(t *testing.T) {
	ex := exitRecord{finished: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), code: 137, reason: cri.ReasonOOMKilled, message: "m"}
	got, ok := exitOfLabels(labelsOfExit(ex))
	require.True(t, ok)
	assert.Equal(t, ex, got)
	tests := []struct {
		name   string
		labels map[string]string
	}{
		{"none", map[string]string{}},
		{"bad time", map[string]string{labelFinished: "yesterday", labelExitCode: "1"}},
		{"bad code", map[string]string{labelFinished: "2026-01-02T03:04:05Z", labelExitCode: "x"}},
		{"code overflow", map[string]string{labelFinished: "2026-01-02T03:04:05Z", labelExitCode: "99999999999"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := exitOfLabels(tt.labels)
			assert.False(t, ok)
		})
	}
}

func TestReasonFor(t *testing.T) {
	assert.Equal(t, cri.ReasonCompleted, reasonFor(0, false))
	assert.Equal(t, cri.ReasonError, reasonFor(3, false))
	assert.Equal(t, cri.ReasonOOMKilled, reasonFor(137, true))
}

func TestDecodeRecord(t *testing.T) {
	rec := containerRecord{SandboxID: "s", Config: cri.ContainerConfig{Metadata: cri.ContainerMetadata{Name: "c"}}}
	a, err := marshalRecord(typeCtr, rec)
	require.NoError(t, err)
	var got containerRecord
	require.NoError(t, decodeRecordBytes(a.GetTypeUrl(), typeCtr, a.GetValue(), &got))
	assert.Equal(t, rec, got)
	assert.Error(t, decodeRecordBytes(typeSandbox, typeCtr, a.GetValue(), &got), "wrong type")
	assert.Error(t, decodeRecordBytes(typeCtr, typeCtr, []byte("{"), &got), "truncated")
	assert.Error(t, decodeRecordBytes(typeCtr, typeCtr, bytes.Repeat([]byte(" "), maxRecordSize+1), &got), "oversized")
	big := cri.ContainerConfig{Annotations: map[string]string{"k": strings.Repeat("v", maxRecordSize)}}
	_, err = marshalRecord(typeCtr, containerRecord{Config: big})
	assert.ErrorIs(t, err, cri.ErrInvalidArgument)
}

func FuzzDecodeRecord(f *testing.F) {
	a, _ := marshalRecord(typeSandbox, sandboxRecord{NetNSPath: "/x", Config: cri.PodSandboxConfig{Hostname: "h"}})
	f.Add(a.GetValue())
	f.Add([]byte(`{"Config":{"Metadata":{"Attempt":-1}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var rec sandboxRecord
		if err := decodeRecordBytes(typeSandbox, typeSandbox, b, &rec); err != nil {
			return
		}
		// Whatever decodes must encode again.
		if _, err := marshalRecord(typeSandbox, rec); err != nil && !errors.Is(err, cri.ErrInvalidArgument) {
			t.Fatalf("re-encode: %v", err)
		}
	})
}

func TestCopyLog(t *testing.T) {
	now := func() time.Time { return time.Date(2016, 10, 6, 0, 17, 9, 669794202, time.UTC) }
	long := strings.Repeat("y", MaxLogLine+10)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"lines", "a\nb\n", "2016-10-06T00:17:09.669794202Z stdout F a\n2016-10-06T00:17:09.669794202Z stdout F b\n"},
		{"empty line", "\n", "2016-10-06T00:17:09.669794202Z stdout F \n"},
		{"no newline at EOF", "tail", "2016-10-06T00:17:09.669794202Z stdout P tail\n"},
		{"nothing", "", ""},
		{"long line", long + "\n", "2016-10-06T00:17:09.669794202Z stdout P " + long[:MaxLogLine] + "\n" +
			"2016-10-06T00:17:09.669794202Z stdout F " + long[MaxLogLine:] + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			CopyLog(&out, strings.NewReader(tt.in), "stdout", now)
			assert.Equal(t, tt.want, out.String())
		})
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestCopyLogDrainsOnWriteError(t *testing.T) {
	src := strings.NewReader(strings.Repeat("line\n", 1000))
	w := &failWriter{}
	CopyLog(w, src, "stderr", time.Now)
	assert.Equal(t, 1, w.n, "stops writing after the first failure")
	assert.Zero(t, src.Len(), "but drains the source so the container never blocks")
}

func TestParseLogLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    LogEntry
		wantErr bool
	}{
		{"full", "2016-10-06T00:17:09.669794202Z stdout F hello world",
			LogEntry{Time: time.Date(2016, 10, 6, 0, 17, 9, 669794202, time.UTC), Stream: "stdout", Text: []byte("hello world")}, false},
		{"partial", "2016-10-06T00:17:09Z stderr P abc",
			LogEntry{Time: time.Date(2016, 10, 6, 0, 17, 9, 0, time.UTC), Stream: "stderr", Partial: true, Text: []byte("abc")}, false},
		{"empty text", "2016-10-06T00:17:09Z stdout F ",
			LogEntry{Time: time.Date(2016, 10, 6, 0, 17, 9, 0, time.UTC), Stream: "stdout", Text: []byte{}}, false},
		{"no text", "2016-10-06T00:17:09Z stdout F",
			LogEntry{Time: time.Date(2016, 10, 6, 0, 17, 9, 0, time.UTC), Stream: "stdout"}, false},
		{"garbage", "hello", LogEntry{}, true},
		{"bad time", "yesterday stdout F x", LogEntry{}, true},
		{"bad stream", "2016-10-06T00:17:09Z stdin F x", LogEntry{}, true},
		{"bad tag", "2016-10-06T00:17:09Z stdout X x", LogEntry{}, true},
		{"no tag", "2016-10-06T00:17:09Z stdout", LogEntry{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLogLine([]byte(tt.line))
			if tt.wantErr {
				assert.ErrorIs(t, err, cri.ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.want.Time.Equal(got.Time))
			assert.Equal(t, tt.want.Stream, got.Stream)
			assert.Equal(t, tt.want.Partial, got.Partial)
			assert.Equal(t, string(tt.want.Text), string(got.Text))
		})
	}
}

func FuzzParseLogLine(f *testing.F) {
	f.Add([]byte("2016-10-06T00:17:09.669794202Z stdout F hello"))
	f.Add([]byte("2016-10-06T00:17:09Z stderr P "))
	f.Add([]byte(" "))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := ParseLogLine(line)
		if err != nil {
			return
		}
		if e.Stream != "stdout" && e.Stream != "stderr" {
			t.Fatalf("stream %q", e.Stream)
		}
	})
}

// FuzzCopyLogRoundTrip: whatever a container writes, the log file parses
// back to the same bytes (lines rejoined, partials concatenated).
func FuzzCopyLogRoundTrip(f *testing.F) {
	f.Add([]byte("a\nb\n"))
	f.Add([]byte("no newline"))
	f.Add([]byte("\n\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		CopyLog(&out, bytes.NewReader(in), "stdout", time.Now)
		var got bytes.Buffer
		for _, line := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			e, err := ParseLogLine(bytes.TrimSuffix(line, []byte("\n")))
			if err != nil {
				t.Fatalf("unparsable line %q: %v", line, err)
			}
			got.Write(e.Text)
			if !e.Partial {
				got.WriteByte('\n')
			}
		}
		if !bytes.Equal(got.Bytes(), in) {
			t.Fatalf("round trip:\n in %q\nout %q", in, got.Bytes())
		}
	})
}

func TestDecodeAuth(t *testing.T) {
	tests := []struct {
		name, in, user, pass string
		wantErr              bool
	}{
		{"ok", "dXNlcjpwYXNz", "user", "pass", false},
		{"colon in password", "dXNlcjpwOmFzcw==", "user", "p:ass", false},
		{"not base64", "!!!", "", "", true},
		{"no colon", "dXNlcg==", "", "", true},
		{"empty user", "OnBhc3M=", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, p, err := decodeAuth(tt.in)
			if tt.wantErr {
				assert.ErrorIs(t, err, cri.ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.user, u)
			assert.Equal(t, tt.pass, p)
		})
	}
}

func FuzzDecodeAuth(f *testing.F) {
	f.Add("dXNlcjpwYXNz")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		u, _, err := decodeAuth(s)
		if err == nil && u == "" {
			t.Fatal("accepted an empty user")
		}
	})
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:5000": true, "localhost:5000": true, "localhost": true, "[::1]:5000": true, "127.8.9.1": true,
		"10.0.0.1:5000": false, "registry.example.com": false, "example.com:443": false, "localhost.evil.com": false,
	} {
		got, err := isLoopbackHost(host)
		require.NoError(t, err)
		assert.Equal(t, want, got, host)
	}
}

func TestNormalizeImageRef(t *testing.T) {
	tests := []struct{ in, want string }{
		{"busybox", "docker.io/library/busybox:latest"},
		{"orkit.local/hello:v1", "orkit.local/hello:v1"},
		{"127.0.0.1:5000/a/b", "127.0.0.1:5000/a/b:latest"},
		{"sha256:" + strings.Repeat("a", 64), "sha256:" + strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := NormalizeImageRef(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	for _, bad := range []string{"", "a::b", "/x", "a b", "x@sha256:zz"} {
		_, err := NormalizeImageRef(bad)
		assert.ErrorIs(t, err, cri.ErrInvalidImage, bad)
	}
}

func FuzzNormalizeImageRef(f *testing.F) {
	f.Add("orkit.local/hello:v1")
	f.Add("busybox@sha256:" + strings.Repeat("0", 64))
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := NormalizeImageRef(s)
		if err != nil {
			return
		}
		again, err := NormalizeImageRef(ref)
		if err != nil || again != ref {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", s, ref, again, err)
		}
	})
}

func TestMergeResources(t *testing.T) {
	r := mergeResources(nil, cri.LinuxContainerResources{CPUShares: 512, CPUQuota: 50000, CPUPeriod: 100000, MemoryLimitInBytes: 64 << 20, CpusetCpus: "0"})
	assert.Equal(t, uint64(512), *r.CPU.Shares)
	assert.Equal(t, int64(50000), *r.CPU.Quota)
	assert.Equal(t, uint64(100000), *r.CPU.Period)
	assert.Equal(t, int64(64<<20), *r.Memory.Limit)
	assert.Equal(t, "0", r.CPU.Cpus)
	r2 := mergeResources(r, cri.LinuxContainerResources{CPUShares: 1024})
	assert.Equal(t, uint64(1024), *r2.CPU.Shares)
	assert.Equal(t, int64(64<<20), *r2.Memory.Limit, "unset fields keep their value")
}

func TestCapNames(t *testing.T) {
	got, err := capNames([]string{"net_admin", "CAP_SYS_TIME", "ALL"})
	require.NoError(t, err)
	assert.Equal(t, []string{"CAP_NET_ADMIN", "CAP_SYS_TIME", "CAP_ALL"}, got)
	_, err = capNames([]string{"FLY"})
	assert.ErrorIs(t, err, cri.ErrInvalidArgument)
}

func TestResolvConf(t *testing.T) {
	got, err := resolvConf(&cri.DNSConfig{Servers: []string{"10.96.0.10"}, Searches: []string{"default.svc.cluster.local", "svc.cluster.local"}, Options: []string{"ndots:5"}})
	require.NoError(t, err)
	assert.Equal(t, "nameserver 10.96.0.10\nsearch default.svc.cluster.local svc.cluster.local\noptions ndots:5\n", got)
}

func TestKeyLocks(t *testing.T) {
	var k keyLocks
	var mu sync.Mutex
	inside := 0
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer k.lock("a")()
			mu.Lock()
			inside++
			n := inside
			mu.Unlock()
			assert.Equal(t, 1, n, "one holder at a time")
			mu.Lock()
			inside--
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Empty(t, k.locks, "no lock entries left")
}

func TestReadCounter(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/memory.oom_control"
	require.NoError(t, writeFile(p, "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"))
	n, ok := readCounter(p, "oom_kill")
	assert.True(t, ok)
	assert.Equal(t, uint64(2), n)
	_, ok = readCounter(p, "missing")
	assert.False(t, ok)
	_, ok = readCounter(dir+"/nope", "oom_kill")
	assert.False(t, ok)
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
