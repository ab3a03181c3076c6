package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// errPortTaken: a member could not bind a port picked for it.
var errPortTaken = errors.New("port taken before etcd bound it")

// Member is one etcd process of a Cluster. Name, Dir and the URLs stay the
// same across Kill and Restart; its methods are safe for concurrent use.
type Member struct {
	// Name is the member's etcd name (m0, m1, ...).
	Name string
	// Dir holds the member's data (Dir/data) and log (Dir/etcd.log).
	Dir string
	// ClientURL is where clients connect (http://127.0.0.1:port).
	ClientURL string
	// PeerURL is where the other members connect.
	PeerURL string

	cluster *Cluster
	args    []string

	mu   sync.Mutex
	id   uint64        // raft member ID, learned once healthy
	cmd  *exec.Cmd     // the running process, nil when stopped
	done chan struct{} // closed when cmd has exited
}

// baseArgs are the flags of a member of the cluster described by initial.
func (m *Member) baseArgs(initial, token string) []string {
	return []string{
		"--name", m.Name,
		"--data-dir", filepath.Join(m.Dir, "data"),
		"--listen-client-urls", m.ClientURL,
		"--advertise-client-urls", m.ClientURL,
		"--listen-peer-urls", m.PeerURL,
		"--initial-advertise-peer-urls", m.PeerURL,
		"--initial-cluster", initial,
		"--initial-cluster-state", "new",
		"--initial-cluster-token", token,
		"--max-request-bytes", strconv.Itoa(MaxRequestBytes),
		// Twice etcd's default election timeout: a member starved of CPU
		// on a loaded test machine should not depose a healthy leader
		// (writes in flight then fail with "leader changed").
		"--heartbeat-interval", "100",
		"--election-timeout", "2000",
		"--log-level", "warn",
	}
}

// LogPath is the file the member's output goes to (appended across
// restarts).
func (m *Member) LogPath() string { return filepath.Join(m.Dir, "etcd.log") }

// spawn starts the process; it does not wait for it to be healthy.
func (m *Member) spawn() error {
	log, err := os.OpenFile(m.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(m.cluster.bin, m.args...)
	cmd.Stdout, cmd.Stderr = log, log
	// The member dies with the test binary, even when that is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start etcd member %s: %w", m.Name, err)
	}
	done := make(chan struct{})
	go func() { // owned by the member; ends when the process exits
		_ = cmd.Wait()
		close(done)
	}()
	m.mu.Lock()
	m.cmd, m.done = cmd, done
	m.mu.Unlock()
	return nil
}

// Running reports whether the member's process is running.
func (m *Member) Running() bool {
	m.mu.Lock()
	done := m.done
	m.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// PID returns the process ID of the running member, 0 when it is stopped.
func (m *Member) PID() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return 0
	}
	return m.cmd.Process.Pid
}

// Kill SIGKILLs the member (by PID) and waits for it to exit; its data
// stays for Restart. A no-op when it is not running.
func (m *Member) Kill() error {
	m.mu.Lock()
	cmd, done := m.cmd, m.done
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return nil
	}
	err := cmd.Process.Signal(syscall.SIGKILL)
	<-done
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	return err
}

// Restart starts a stopped (killed) member again on its data and ports and
// waits until it is healthy: it rejoins the cluster and catches up from
// the leader (Cluster.WaitInSync waits for that to finish).
func (m *Member) Restart(ctx context.Context) error {
	if m.Running() {
		return fmt.Errorf("etcd member %s is running", m.Name)
	}
	if err := m.spawn(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return m.waitHealthy(ctx)
}

// waitHealthy polls the member's /health until it reports healthy, the
// process exits or ctx ends, then learns the member's ID.
func (m *Member) waitHealthy(ctx context.Context) error {
	m.mu.Lock()
	done := m.done
	m.mu.Unlock()
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: m.cluster.ClientTLS()}}
	defer hc.CloseIdleConnections()
	for {
		if healthy(ctx, hc, m.ClientURL+"/health") {
			st, err := m.Status(ctx)
			if err == nil {
				m.mu.Lock()
				m.id = st.Header.MemberId
				m.mu.Unlock()
				return nil
			}
		}
		select {
		case <-done:
			return m.exited()
		case <-ctx.Done():
			return fmt.Errorf("etcd member %s not healthy: %w\n%s", m.Name, ctx.Err(), m.logTail())
		case <-time.After(50 * time.Millisecond): // polling, with ctx as deadline
		}
	}
}

// exited describes a member that exited while starting.
func (m *Member) exited() error {
	tail := m.logTail()
	if bytes.Contains([]byte(tail), []byte("address already in use")) {
		return fmt.Errorf("etcd member %s: %w", m.Name, errPortTaken)
	}
	return fmt.Errorf("etcd member %s exited while starting:\n%s", m.Name, tail)
}

// healthy reports whether GET url answers {"health":"true",...}.
func healthy(ctx context.Context, hc *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"health":"true"`))
}

// logTail returns the end of the member's log, for error messages.
func (m *Member) logTail() string {
	b, err := os.ReadFile(m.LogPath())
	if err != nil {
		return err.Error()
	}
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}

// Status asks this member (only) for its status: its own revision
// (Header.Revision), raft indexes and the leader it follows.
func (m *Member) Status(ctx context.Context) (*clientv3.StatusResponse, error) {
	cli, err := m.cluster.client(m.ClientURL)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return cli.Status(ctx, m.ClientURL)
}
