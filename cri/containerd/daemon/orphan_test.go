package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/cri/containerd/daemon"
)

// parentEnv, set in the environment of this test binary run again as a
// child, makes it a daemon's parent (see runParent) instead of running
// the tests.
const parentEnv = "ORKIT_DAEMON_TEST_PARENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(parentEnv); dir != "" {
		os.Exit(runParent(dir))
	}
	os.Exit(m.Run())
}

// runParent starts a Daemon on dir from a goroutine that then ends, ends
// 64 OS threads (goroutines that exit locked to their thread), prints
// "pid <containerd pid>" and waits to be killed. Without the forking
// thread kept alive, the thread churn would fire the daemon's parent-death
// signal early.
func runParent(dir string) int {
	type result struct {
		d   *daemon.Daemon
		err error
	}
	ch := make(chan result)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d, err := daemon.Start(ctx, dir)
		ch <- result{d, err}
	}()
	r := <-ch
	if r.err != nil {
		fmt.Println("error", r.err)
		return 1
	}
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() { runtime.LockOSThread() }) // the thread ends with the goroutine
	}
	wg.Wait()
	fmt.Println("pid", r.d.PID())
	select {}
}

// TestParentDeathKillsContainerd: when the process that started a Daemon
// dies (SIGKILL, as a go test timeout does), its containerd dies too,
// however many OS threads the parent ended before; nothing is orphaned.
func TestParentDeathKillsContainerd(t *testing.T) {
	if err := daemon.CheckPrerequisites(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skipf("prerequisite missing: %v", err)
	}
	parentDir, err := os.MkdirTemp("", "okp-")
	require.NoError(t, err)
	defer func() {
		assert.NoError(t, daemon.SweepStale(parentDir, "d"))
		assert.NoError(t, os.Remove(parentDir))
	}()
	exe, err := os.Executable()
	require.NoError(t, err)
	parent := exec.Command(exe)
	parent.Env = append(os.Environ(), parentEnv+"="+filepath.Join(parentDir, "d"))
	out, err := parent.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, parent.Start())
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()

	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	f := strings.Fields(line)
	require.Len(t, f, 2, "parent said %q", line)
	require.Equal(t, "pid", f[0], "parent said %q", line)
	pid, err := strconv.Atoi(f[1])
	require.NoError(t, err)
	require.True(t, running(pid), "containerd %d runs while its parent lives, after the parent's thread churn", pid)

	require.NoError(t, parent.Process.Kill())
	_ = parent.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for running(pid) {
		require.True(t, time.Now().Before(deadline), "containerd %d outlived its parent", pid)
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid is a live containerd (not a zombie).
func running(pid int) bool {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || strings.TrimSpace(string(comm)) != "containerd" {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && syscall.Kill(pid, 0) == nil
}
