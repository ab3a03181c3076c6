package containerd_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri"
)

func TestExitCodesAndReasons(t *testing.T) {
	rt, _ := newRuntime(t)
	sb, sbCfg := runPod(t, rt, "exits")
	events := rt.Events(ctxT(t))
	tests := []struct {
		name       string
		args       []string
		memory     int64
		wantCode   int32
		wantReason string
	}{
		{"completed", []string{"exit", "0"}, 0, 0, cri.ReasonCompleted},
		{"error", []string{"exit", "3"}, 0, 3, cri.ReasonError},
		{"oom", []string{"alloc", "256"}, 32 << 20, 137, cri.ReasonOOMKilled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := helloConfig(tt.name, tt.args...)
			if tt.memory > 0 {
				cfg.Linux.Resources = &cri.LinuxContainerResources{MemoryLimitInBytes: tt.memory}
			}
			id := startContainer(t, rt, sb, sbCfg, cfg)
			st := waitStatus(t, rt, id, exited)
			assert.Equal(t, tt.wantCode, st.ExitCode)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.False(t, st.StartedAt.IsZero())
			assert.False(t, st.FinishedAt.Before(st.StartedAt), "finished %v before started %v", st.FinishedAt, st.StartedAt)
			// The recorded exit does not change once the task is gone.
			st2 := waitStatus(t, rt, id, exited)
			assert.Equal(t, st.Reason, st2.Reason)
			if tt.wantReason == cri.ReasonOOMKilled {
				// containerd's OOM event is mapped to a ContainerEvent.
				timeout := time.After(10 * time.Second)
				for {
					select {
					case ev := <-events:
						if ev.ContainerID == id && ev.Type == cri.ContainerEventOOM {
							assert.Equal(t, sb, ev.PodSandboxID)
							return
						}
					case <-timeout:
						t.Fatal("no CONTAINER_OOM event")
					}
				}
			}
		})
	}
}

func TestStopContainerGracePeriod(t *testing.T) {
	rt, _ := newRuntime(t)
	ctx := ctxT(t)
	sb, sbCfg := runPod(t, rt, "stop")

	stubbornCfg := helloConfig("stubborn", "sleep-ignore-term", "1h")
	stubborn := startContainer(t, rt, sb, sbCfg, stubbornCfg)
	waitLog(t, logPath(sbCfg, stubbornCfg), "ignoring SIGTERM")
	start := time.Now()
	require.NoError(t, rt.StopContainer(ctx, stubborn, 2*time.Second))
	took := time.Since(start)
	st, err := rt.ContainerStatus(ctx, stubborn)
	require.NoError(t, err)
	assert.Equal(t, cri.ContainerExited, st.State)
	assert.Equal(t, int32(137), st.ExitCode, "SIGKILLed after the grace period")
	assert.GreaterOrEqual(t, took, 2*time.Second, "the grace period was honoured")

	politeCfg := helloConfig("polite")
	polite := startContainer(t, rt, sb, sbCfg, politeCfg)
	waitLog(t, logPath(sbCfg, politeCfg), "listening")
	require.NoError(t, rt.StopContainer(ctx, polite, 30*time.Second))
	st, err = rt.ContainerStatus(ctx, polite)
	require.NoError(t, err)
	assert.Equal(t, int32(0), st.ExitCode, "exits 0 on SIGTERM")
	assert.Equal(t, cri.ReasonCompleted, st.Reason)
	require.NoError(t, rt.StopContainer(ctx, polite, time.Second), "stopping again is fine")
}

var criLogLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (stdout|stderr) (F|P) `)

func TestLogsCRIFormat(t *testing.T) {
	rt, _ := newRuntime(t)
	sb, sbCfg := runPod(t, rt, "logs")
	long := strings.Repeat("x", 20000)
	tests := []struct {
		name       string
		args       []string
		wantStream string
		wantText   string
		wantTags   string
	}{
		{"stdout", []string{"echo", "hello", "world"}, "stdout", "hello world\n", "F"},
		{"stderr", []string{"echo-err", "oops"}, "stderr", "oops\n", "F"},
		{"partial", []string{"echo", long}, "stdout", long + "\n", "PF"},
		{"no newline", []string{"print", "tail"}, "stdout", "tail", "P"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := helloConfig(strings.ReplaceAll(tt.name, " ", "-"), tt.args...)
			id := startContainer(t, rt, sb, sbCfg, cfg)
			st := waitStatus(t, rt, id, exited)
			require.Equal(t, int32(0), st.ExitCode)
			assert.Equal(t, logPath(sbCfg, cfg), st.LogPath)
			var entries []string
			deadline := time.Now().Add(10 * time.Second)
			for {
				raw, err := os.ReadFile(st.LogPath)
				require.NoError(t, err)
				entries = strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
				if strings.HasSuffix(string(raw), "\n") && len(entries) >= len(tt.wantTags) || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			tags := ""
			for _, e := range entries {
				m := criLogLine.FindStringSubmatch(e)
				require.NotNil(t, m, "line %.80q", e)
				tags += m[2]
			}
			assert.Equal(t, tt.wantTags, tags)
			assert.Equal(t, tt.wantText, logText(readLog(t, st.LogPath), tt.wantStream))
		})
	}
}

func TestTTYContainerLogs(t *testing.T) {
	rt, _ := newRuntime(t)
	sb, sbCfg := runPod(t, rt, "tty")
	cfg := helloConfig("tty", "echo", "on a terminal")
	cfg.TTY = true
	id := startContainer(t, rt, sb, sbCfg, cfg)
	st := waitStatus(t, rt, id, exited)
	require.Equal(t, int32(0), st.ExitCode)
	waitLog(t, st.LogPath, "on a terminal")
	for _, e := range readLog(t, st.LogPath) {
		assert.Equal(t, "stdout", e.Stream, "a terminal has one stream")
	}
}

func TestEventsOrder(t *testing.T) {
	rt, _ := newRuntime(t)
	ctx := ctxT(t)
	events := rt.Events(ctx)
	sb, sbCfg := runPod(t, rt, "events")
	id := startContainer(t, rt, sb, sbCfg, helloConfig("quick", "exit", "5"))
	waitStatus(t, rt, id, exited)
	require.NoError(t, rt.RemoveContainer(ctx, id))
	want := []cri.ContainerEventType{cri.ContainerEventCreated, cri.ContainerEventStarted, cri.ContainerEventExited, cri.ContainerEventDeleted}
	var got []cri.ContainerEventType
	timeout := time.After(30 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-events:
			require.Equal(t, id, ev.ContainerID, "only app container events: %+v", ev)
			assert.Equal(t, sb, ev.PodSandboxID)
			if ev.Type == cri.ContainerEventExited {
				assert.Equal(t, int32(5), ev.ExitCode)
			}
			got = append(got, ev.Type)
		case <-timeout:
			t.Fatalf("events so far %v, want %v", got, want)
		}
	}
	assert.Equal(t, want, got)
}

// waitLog polls a log file until it contains text.
func waitLog(t *testing.T, path, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %s: no %q in %q", path, text, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
