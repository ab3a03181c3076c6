package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/store/bbolt"
)

// holderEnv, set in the environment of this test binary run again as a
// child, makes it a minicluster on the data directory it names (no
// nodes) that prints "ready" and runs until its stdin closes.
const holderEnv = "ORKIT_MINICLUSTER_TEST_HOLDER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holderEnv); dir != "" {
		os.Exit(runHolder(dir))
	}
	os.Exit(m.Run())
}

func runHolder(dir string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ln, err := listenFree()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	c, err := startCluster(ctx, options{DataDir: dir, Listen: ln, Out: io.Discard})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	c.Close()
	return 0
}

// TestDataDirInUse: a minicluster on a data directory another minicluster
// process runs on is refused with ErrLocked naming the store file and the
// process holding it; so is --defragment while the other runs, and both
// work once it stopped.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), holderEnv+"="+dir)
	stdin, err := holder.StdinPipe()
	require.NoError(t, err)
	stdout, err := holder.StdoutPipe()
	require.NoError(t, err)
	holder.Stderr = os.Stderr
	require.NoError(t, holder.Start())
	defer func() { _ = stdin.Close(); _ = holder.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready", strings.TrimSpace(line))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Out: &syncBuffer{}})
	require.ErrorIs(t, err, bbolt.ErrLocked)
	t.Log(err)
	assert.Contains(t, err.Error(), dir+"/store.db")
	assert.Contains(t, err.Error(), "held by pid "+strconv.Itoa(holder.Process.Pid))
	err = defragment(dir, &bytes.Buffer{})
	require.ErrorIs(t, err, bbolt.ErrLocked)

	require.NoError(t, stdin.Close())
	require.NoError(t, holder.Wait())
	var out bytes.Buffer
	require.NoError(t, defragment(dir, &out))
	assert.Contains(t, out.String(), "defragmented")
	c, err := startCluster(ctx, options{DataDir: dir, Listen: freeAddr(t), Out: &syncBuffer{}})
	require.NoError(t, err, "the directory is free once the other minicluster stopped")
	c.Close()
}

// listenFree returns a free 127.0.0.1 address (freeAddr without a test).
func listenFree() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
