package etcdtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// MaxRequestBytes is the --max-request-bytes every member runs with: 2 MiB,
// room for a store.MaxValueSize (1.5 MiB) value plus key and transaction
// framing (etcd's default, 1.5 MiB, is too small for that value).
const MaxRequestBytes = 2 << 20

// startTimeout bounds Start and Restart: members up and healthy.
const startTimeout = 2 * time.Minute

// Cluster is a private etcd cluster of child processes. Its methods are
// safe for concurrent use; it lives until Stop (Start registers that with
// t.Cleanup).
type Cluster struct {
	bin       string
	dir       string
	clientTLS *tls.Config // nil: plain client URLs
	members   []*Member
	stopped   sync.Once
}

// Config shapes a cluster. The zero value is one plain member.
type Config struct {
	// Members is the number of members; zero means 1.
	Members int
	// TLS serves the client URLs (https://) with certificates of a CA made
	// for the cluster and requires client certificates from it
	// (--client-cert-auth); ClientTLS gives a client what it needs. Peers
	// talk plain HTTP.
	TLS bool
	// Args are extra flags for every member (a later flag overrides an
	// earlier one).
	Args []string
}

// Start starts a cluster of n members for the test and stops it at the
// test's cleanup. It skips (CI=true: fails) the test when the etcd binary
// is missing and fails it when the cluster does not come up. args are
// extra flags for every member (a later flag overrides an earlier one).
func Start(t testing.TB, n int, args ...string) *Cluster {
	t.Helper()
	return StartWith(t, Config{Members: n, Args: args})
}

// StartWith is Start with Config.
func StartWith(t testing.TB, opts Config) *Cluster {
	t.Helper()
	bin := Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := StartCluster(ctx, bin, t.TempDir(), opts)
	if err != nil {
		t.Fatalf("start etcd cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartCluster starts the members of bin that opts describes, with data
// under dir (which must exist), and waits until all are healthy. The
// caller owns the cluster and must Stop it. Ports are picked free on
// 127.0.0.1; when another process takes one before etcd binds it, the
// cluster is started again on new ports (up to three times).
func StartCluster(ctx context.Context, bin, dir string, opts Config) (*Cluster, error) {
	if opts.Members == 0 {
		opts.Members = 1
	}
	if opts.Members < 1 {
		return nil, fmt.Errorf("etcd cluster of %d members: need at least one", opts.Members)
	}
	var err error
	for attempt := range 3 {
		c := &Cluster{bin: bin, dir: filepath.Join(dir, fmt.Sprintf("try%d", attempt))}
		if err = c.start(ctx, opts); err == nil {
			return c, nil
		}
		c.Stop()
		if !errors.Is(err, errPortTaken) {
			return nil, err
		}
	}
	return nil, err
}

// start lays out and starts the members, then waits for them.
func (c *Cluster) start(ctx context.Context, opts Config) error {
	n := opts.Members
	ports, err := freePorts(2 * n)
	if err != nil {
		return err
	}
	scheme, args := "http", opts.Args
	if opts.TLS {
		tlsArgs, err := c.makeCerts()
		if err != nil {
			return err
		}
		scheme, args = "https", append(tlsArgs, args...)
	}
	var initial []string
	for i := range n {
		m := &Member{
			Name:      fmt.Sprintf("m%d", i),
			ClientURL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, ports[2*i]),
			PeerURL:   fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
			cluster:   c,
		}
		m.Dir = filepath.Join(c.dir, m.Name)
		c.members = append(c.members, m)
		initial = append(initial, m.Name+"="+m.PeerURL)
	}
	token := fmt.Sprintf("orkit-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	for _, m := range c.members {
		m.args = append(m.baseArgs(strings.Join(initial, ","), token), args...)
		if err := os.MkdirAll(m.Dir, 0o700); err != nil {
			return err
		}
		if err := m.spawn(); err != nil {
			return err
		}
	}
	for _, m := range c.members {
		if err := m.waitHealthy(ctx); err != nil {
			return err
		}
	}
	return nil
}

// freePorts returns n distinct free TCP ports on 127.0.0.1. They are free
// when picked; StartCluster retries if one is taken before etcd binds it.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("pick a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Endpoints returns every member's client URL, for clientv3 or
// store/etcd's Config.Endpoints.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.ClientURL
	}
	return eps
}

// Members returns the members in start order (m0, m1, ...).
func (c *Cluster) Members() []*Member { return c.members }

// Stop SIGKILLs every member still running and waits for it (the data is
// throw-away, so there is nothing to shut down gracefully); the data
// directories go with the test's TempDir. Safe to call more than once.
func (c *Cluster) Stop() {
	c.stopped.Do(func() {
		for _, m := range c.members {
			_ = m.Kill()
		}
	})
}

// ClientTLS returns the TLS configuration a client of a TLS cluster needs
// (the cluster CA and a client certificate), nil for a plain cluster.
// Callers may modify the copy they get.
func (c *Cluster) ClientTLS() *tls.Config {
	if c.clientTLS == nil {
		return nil
	}
	return c.clientTLS.Clone()
}

// client returns a client for the given endpoints; the caller closes it.
func (c *Cluster) client(endpoints ...string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: endpoints, TLS: c.ClientTLS(),
		DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

// Leader returns the index of the member that is the raft leader, as the
// running members see it.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	for _, m := range c.members {
		if !m.Running() {
			continue
		}
		st, err := m.Status(ctx)
		if err != nil {
			continue
		}
		for i, o := range c.members {
			if o.id != 0 && o.id == st.Leader {
				return i, nil
			}
		}
	}
	return -1, errors.New("no running member knows a leader")
}

// WaitInSync waits until every running member has applied the same raft
// index and reports the same revision, e.g. after a restarted member has
// caught up. It returns that revision.
func (c *Cluster) WaitInSync(ctx context.Context) (int64, error) {
	for {
		rev, ok, err := c.inSync(ctx)
		if ok || err != nil {
			return rev, err
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("members not in sync: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond): // polling, with ctx as deadline
		}
	}
}

// inSync reports whether the running members agree on applied index and
// revision; errors from a member still starting count as "not yet".
func (c *Cluster) inSync(ctx context.Context) (int64, bool, error) {
	var rev int64
	var applied uint64
	first := true
	for _, m := range c.members {
		if !m.Running() {
			continue
		}
		st, err := m.Status(ctx)
		if err != nil {
			return 0, false, ctx.Err()
		}
		if !first && (st.RaftAppliedIndex != applied || st.Header.Revision != rev) {
			return 0, false, nil
		}
		rev, applied, first = st.Header.Revision, st.RaftAppliedIndex, false
	}
	return rev, true, nil
}
