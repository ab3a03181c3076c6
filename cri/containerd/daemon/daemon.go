package daemon

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	containerd "github.com/containerd/containerd"
)

// Option configures Start.
type Option func(*options)

type options struct{ tmpfsRoot bool }

// WithTmpfsRoot puts the daemon's root (metadata database, content,
// snapshots) on a tmpfs mounted at <dir>/root: no fsync cost, nothing
// survives a reboot. Clean unmounts it. For tests and benchmarks.
func WithTmpfsRoot() Option { return func(o *options) { o.tmpfsRoot = true } }

// mountTmpfs mounts a tmpfs at path unless one is mounted there already.
func mountTmpfs(path string) error {
	if err := os.MkdirAll(path, 0o711); err != nil {
		return fmt.Errorf("containerd root: %w", err)
	}
	if mps, err := MountsUnder(path); err == nil && len(mps) > 0 && mps[len(mps)-1] == path {
		return nil
	}
	if err := syscall.Mount("tmpfs", path, "tmpfs", 0, "mode=0711"); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", path, err)
	}
	return nil
}

// Binaries the daemon needs on PATH.
var requiredBinaries = []string{"containerd", "containerd-shim-runc-v2", "runc"}

// CheckPrerequisites reports, wrapping ErrMissingPrerequisite, why a private
// containerd cannot run here: not root, or a binary missing from PATH.
func CheckPrerequisites() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("containerd needs root (euid %d): %w", os.Geteuid(), ErrMissingPrerequisite)
	}
	for _, b := range requiredBinaries {
		if _, err := exec.LookPath(b); err != nil {
			return fmt.Errorf("%s not on PATH (Debian package %s): %w", b, debPackage(b), ErrMissingPrerequisite)
		}
	}
	return nil
}

func debPackage(bin string) string {
	if bin == "runc" {
		return "runc"
	}
	return "containerd"
}

// Daemon is a running private containerd. Its methods are not safe for
// concurrent use; one owner starts, restarts and stops it.
type Daemon struct {
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  *os.File
}

// Dir is the directory holding everything the daemon made.
func (d *Daemon) Dir() string { return d.dir }

// Address is the daemon's gRPC socket.
func (d *Daemon) Address() string { return filepath.Join(d.dir, "containerd.sock") }

// LogPath is the daemon's log file (appended to across restarts).
func (d *Daemon) LogPath() string { return filepath.Join(d.dir, "containerd.log") }

// PID is the daemon's process ID.
func (d *Daemon) PID() int { return d.cmd.Process.Pid }

// Start writes a config under dir (created if missing; keep the path short:
// the socket path must fit in 108 bytes) and starts containerd on it,
// returning once it answers. Starting again on the same dir resumes its
// state. The daemon is not tied to ctx; stop it with Stop or Kill.
func Start(ctx context.Context, dir string, opts ...Option) (*Daemon, error) {
	if err := CheckPrerequisites(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	d := &Daemon{dir: dir}
	if len(d.Address()) > 100 {
		return nil, fmt.Errorf("socket path %q too long for a unix socket: %w", d.Address(), ErrStart)
	}
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return nil, fmt.Errorf("containerd dir: %w", err)
	}
	if o.tmpfsRoot {
		if err := mountTmpfs(filepath.Join(dir, "root")); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ownerPIDFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("containerd owner file: %w", err)
	}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(configTOML(dir)), 0o644); err != nil {
		return nil, fmt.Errorf("containerd config: %w", err)
	}
	if err := d.spawn(cfg); err != nil {
		return nil, err
	}
	if err := d.waitReady(ctx); err != nil {
		d.Kill()
		return nil, err
	}
	return d, nil
}

func (d *Daemon) spawn(cfg string) error {
	logf, err := os.OpenFile(d.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("containerd log: %w", err)
	}
	cmd := exec.Command("containerd", "--config", cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group: a signal to the caller's group does not hit it.
	// No Pdeathsig: it is tied to the forking OS thread, which Go may end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start containerd: %w", err)
	}
	d.cmd, d.log, d.done = cmd, logf, make(chan struct{})
	_ = os.WriteFile(filepath.Join(d.dir, daemonPIDFile), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	go func() {
		d.err = cmd.Wait()
		logf.Close()
		close(d.done)
	}()
	return nil
}

// waitReady polls the socket until the daemon answers a Version call.
func (d *Daemon) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if err := d.ping(ctx); err == nil {
			return nil
		}
		select {
		case <-d.done:
			return fmt.Errorf("containerd exited (%v): %s: %w", d.err, d.logTail(), ErrStart)
		case <-ctx.Done():
			return fmt.Errorf("containerd not answering on %s: %v: %s: %w", d.Address(), ctx.Err(), d.logTail(), ErrStart)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (d *Daemon) ping(ctx context.Context) error {
	if _, err := os.Stat(d.Address()); err != nil {
		return err
	}
	c, err := containerd.New(d.Address(), containerd.WithTimeout(time.Second))
	if err != nil {
		return err
	}
	defer c.Close()
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err = c.Version(pctx)
	return err
}

func (d *Daemon) logTail() string {
	b, _ := os.ReadFile(d.LogPath())
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return strings.Join(lines, " | ")
}

// Stop sends SIGTERM and waits up to timeout for the daemon to exit, then
// SIGKILLs it. Shims and containers keep running (as with a daemon
// restart); Clean removes them.
func (d *Daemon) Stop(timeout time.Duration) {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(timeout):
		d.Kill()
	}
}

// Kill SIGKILLs the daemon (a crash) and waits for it to be reaped.
func (d *Daemon) Kill() {
	_ = d.cmd.Process.Kill()
	<-d.done
}

// Restart kills the daemon and starts it again on the same directory.
func (d *Daemon) Restart(ctx context.Context) error {
	d.Kill()
	if err := d.spawn(filepath.Join(d.dir, "config.toml")); err != nil {
		return err
	}
	return d.waitReady(ctx)
}

// Exited reports whether the daemon process has ended.
func (d *Daemon) Exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

func configTOML(dir string) string {
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
oom_score = 0
disabled_plugins = [
  "io.containerd.grpc.v1.cri",
  "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.internal.v1.tracing",
  "io.containerd.tracing.processor.v1.otlp",
]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[debug]
  level = "info"

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q

[plugins."io.containerd.monitor.v1.cgroups"]
  no_prometheus = true
`, filepath.Join(dir, "root"), filepath.Join(dir, "state"), filepath.Join(dir, "containerd.sock"),
		filepath.Join(dir, "containerd.sock.ttrpc"), filepath.Join(dir, "opt"))
}
