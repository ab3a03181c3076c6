package lbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"
)

// ErrNoBinary: no haproxy on PATH or in /usr/sbin.
var ErrNoBinary = errors.New("haproxy not found (Debian package haproxy; scripts/setup.sh installs it)")

// startTimeout bounds Start: haproxy listening.
const startTimeout = 30 * time.Second

// Binary returns the path of haproxy: PATH's, else /usr/sbin/haproxy.
func Binary() (string, error) {
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy", nil
	}
	return "", ErrNoBinary
}

// Require returns haproxy's path, skipping the test without it (failing
// it when CI=true).
func Require(t testing.TB) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %v", err)
		}
		t.Skipf("prerequisite missing: %v", err)
	}
	return bin
}

// Config shapes a balancer. Backends is required.
type Config struct {
	// Backends are the API servers' host:port addresses.
	Backends []string
	// Host is the loopback address the balancer listens on; "" means
	// 127.0.0.1. Another one (127.0.0.2) makes clients check that the
	// servers' certificates name the balancer's address.
	Host string
	// CAFile verifies the backends' serving certificates in health checks
	// (the cluster CA); "" checks without verifying.
	CAFile string
	// ClientCertFile is a PEM file with a client certificate and its key
	// the health checks authenticate with ("" sends none: the servers must
	// then answer /readyz anonymously).
	ClientCertFile string
	// HealthPath is checked with GET over TLS; "" means /readyz.
	HealthPath string
	// CheckInterval is the time between two checks of a backend; zero
	// means 1 s. Two failed checks take a backend out, one good one puts
	// it back.
	CheckInterval time.Duration
}

// Balancer is a running haproxy child process. Its methods are safe for
// concurrent use; it lives until Stop (Start registers that with
// t.Cleanup).
type Balancer struct {
	addr   string
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
}

// Start writes the configuration for cfg into a temp dir, starts haproxy
// on a free loopback port and waits until it accepts connections.
func Start(t testing.TB, cfg Config) *Balancer {
	t.Helper()
	bin := Require(t)
	b, err := start(bin, t.TempDir(), cfg)
	if err != nil {
		t.Fatalf("start haproxy: %v", err)
	}
	t.Cleanup(b.Stop)
	return b
}

func start(bin, dir string, cfg Config) (*Balancer, error) {
	if len(cfg.Backends) == 0 {
		return nil, errors.New("lbtest: no backends")
	}
	if cfg.HealthPath == "" {
		cfg.HealthPath = "/readyz"
	}
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = time.Second
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	addr, err := freeAddr(cfg.Host)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "haproxy.cfg")
	if err := writeConfig(path, addr, cfg); err != nil {
		return nil, err
	}
	if out, err := exec.Command(bin, "-c", "-f", path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("haproxy -c: %v: %s", err, out)
	}
	b := &Balancer{addr: addr, dir: dir, exited: make(chan struct{}), log: &bytes.Buffer{}}
	// -db: foreground, no daemon; the process is ours to stop by PID.
	b.cmd = exec.Command(bin, "-db", "-f", path)
	b.cmd.Stdout, b.cmd.Stderr = &syncWriter{w: b.log}, &syncWriter{w: b.log}
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = b.cmd.Wait(); close(b.exited) }()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for {
		c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return b, nil
		}
		select {
		case <-b.exited:
			return nil, fmt.Errorf("haproxy exited: %s", b.Log())
		case <-ctx.Done():
			b.Stop()
			return nil, fmt.Errorf("haproxy did not listen on %s in %v: %s", addr, startTimeout, b.Log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Addr is the balancer's host:port.
func (b *Balancer) Addr() string { return b.addr }

// URL is https://Addr.
func (b *Balancer) URL() string { return "https://" + b.addr }

// Log is what haproxy printed so far (health check transitions among it).
func (b *Balancer) Log() string {
	mu.Lock()
	defer mu.Unlock()
	return b.log.String()
}

// Stop ends haproxy by its PID (SIGTERM, SIGKILL after 10 s) and waits.
func (b *Balancer) Stop() {
	select {
	case <-b.exited:
		return
	default:
	}
	_ = syscall.Kill(b.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.exited
	}
}

var cfgTemplate = template.Must(template.New("haproxy").Parse(`# written by internal/lbtest
global
	maxconn 2000
	log stderr format short local0 info

defaults
	mode tcp
	log global
	timeout connect 2s
	timeout client 1h
	timeout server 1h
	timeout check 2s
	retries 3
	option redispatch

frontend apiserver
	bind {{.Addr}}
	default_backend apiservers

backend apiservers
	balance roundrobin
	option httpchk
	http-check connect ssl
	http-check send meth GET uri {{.Path}}
	http-check expect status 200
	default-server inter {{.Inter}} fall 2 rise 1 check{{.SSL}}
{{- range $i, $b := .Backends}}
	server apiserver-{{$i}} {{$b}}
{{- end}}
`))

// writeConfig renders the configuration file.
func writeConfig(path, addr string, cfg Config) error {
	ssl := " verify none"
	if cfg.CAFile != "" {
		ssl = " verify required ca-file " + cfg.CAFile
	}
	if cfg.ClientCertFile != "" {
		ssl += " crt " + cfg.ClientCertFile
	}
	var buf bytes.Buffer
	err := cfgTemplate.Execute(&buf, map[string]any{"Addr": addr, "Path": cfg.HealthPath, "Backends": cfg.Backends,
		"Inter": fmt.Sprintf("%dms", cfg.CheckInterval.Milliseconds()), "SSL": ssl})
	if err != nil {
		return err
	}
	for _, b := range cfg.Backends {
		if strings.ContainsAny(b, " \t\n") {
			return fmt.Errorf("lbtest: backend %q", b)
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(host string) (string, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
