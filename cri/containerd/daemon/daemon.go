package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	containerd "github.com/containerd/containerd"
)

// Option configures Start.
type Option func(*options)

type options struct {
	tmpfsRoot              bool
	minBackoff, maxBackoff time.Duration
	log                    *slog.Logger
}

// Restart backoff defaults (see WithRestartBackoff).
const (
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	// backoffReset: a daemon that ran this long before it died is restarted
	// after the minimum backoff again.
	backoffReset = time.Minute
)

// WithTmpfsRoot puts the daemon's root (metadata database, content,
// snapshots) on a tmpfs mounted at <dir>/root: no fsync cost, nothing
// survives a reboot. Clean unmounts it. For tests and benchmarks.
func WithTmpfsRoot() Option { return func(o *options) { o.tmpfsRoot = true } }

// WithRestartBackoff sets how long the Daemon waits before starting a
// containerd that died: min after the first death, doubling with each
// death in a row up to max, back to min once a daemon ran a minute. Zero
// values mean DefaultMinBackoff (100ms) and DefaultMaxBackoff (30s).
func WithRestartBackoff(min, max time.Duration) Option {
	return func(o *options) { o.minBackoff, o.maxBackoff = min, max }
}

// WithLogger sets where the Daemon reports deaths and restarts; the
// default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

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

// Daemon is a supervised private containerd: when the process dies
// (SIGKILL, a crash, an OOM kill) the Daemon starts it again on the same
// directory after a backoff (WithRestartBackoff), as systemd would, until
// Stop, Kill or Clean. Shims and containers survive a containerd restart,
// so pods keep running; clients reconnect (cri/containerd does).
//
// The Daemon owns one supervising goroutine and one per process it
// started, all ended by Stop, Kill or Clean. Its methods are safe for
// concurrent use.
type Daemon struct {
	dir  string
	opts options

	mu         sync.Mutex
	proc       *process
	supervised bool          // the supervisor restarts a dead proc
	wake       chan struct{} // capacity 1: supervised or proc changed
	restarts   int
}

// process is one containerd process the Daemon started.
type process struct {
	cmd     *exec.Cmd
	started time.Time
	done    chan struct{} // closed once the process is reaped
	err     error         // its exit, valid after done
}

// exited reports whether p has been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Dir is the directory holding everything the daemon made.
func (d *Daemon) Dir() string { return d.dir }

// Address is the daemon's gRPC socket.
func (d *Daemon) Address() string { return filepath.Join(d.dir, "containerd.sock") }

// LogPath is the daemon's log file (appended to across restarts).
func (d *Daemon) LogPath() string { return filepath.Join(d.dir, "containerd.log") }

// PID is the current containerd process's ID (it changes when the Daemon
// restarts containerd; 0 if it could not be started).
func (d *Daemon) PID() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.proc.cmd == nil || d.proc.cmd.Process == nil {
		return 0
	}
	return d.proc.cmd.Process.Pid
}

// Restarts counts the times the Daemon started containerd again after it
// died (not counting Restart).
func (d *Daemon) Restarts() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.restarts
}

// Start writes a config under dir (created if missing; keep the path short:
// the socket path must fit in 108 bytes) and starts containerd on it,
// returning once it answers. Starting again on the same dir resumes its
// state. The daemon is not tied to ctx (which bounds only the wait for it
// to answer) and is supervised from then on (see Daemon); stop it with
// Stop, Kill or Clean.
func Start(ctx context.Context, dir string, opts ...Option) (*Daemon, error) {
	if err := CheckPrerequisites(); err != nil {
		return nil, err
	}
	o := options{minBackoff: DefaultMinBackoff, maxBackoff: DefaultMaxBackoff, log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	if o.minBackoff <= 0 {
		o.minBackoff = DefaultMinBackoff
	}
	if o.maxBackoff < o.minBackoff {
		o.maxBackoff = max(o.minBackoff, DefaultMaxBackoff)
	}
	d := &Daemon{dir: dir, opts: o, wake: make(chan struct{}, 1)}
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
	if err := os.WriteFile(d.configPath(), []byte(configTOML(dir)), 0o644); err != nil {
		return nil, fmt.Errorf("containerd config: %w", err)
	}
	p, err := d.spawn()
	if err != nil {
		return nil, err
	}
	d.proc = p
	if err := d.waitReady(ctx, p); err != nil {
		d.kill(p)
		return nil, err
	}
	d.supervised = true
	go d.supervise()
	return d, nil
}

func (d *Daemon) configPath() string { return filepath.Join(d.dir, "config.toml") }

// spawn starts a containerd process and the goroutine that reaps it.
//
// The process gets SIGKILL when its parent dies (Pdeathsig), so a test
// binary killed by its timeout, or a killed minicluster, leaves no
// containerd behind (SweepStale removes its shims and mounts later).
// Linux sends that signal when the forking OS thread ends, not the
// process, and Go ends or reuses threads at will: so one goroutine,
// locked to its thread and never unlocked, forks the process and waits
// for it. The thread lives until containerd is reaped, then ends with
// the goroutine.
func (d *Daemon) spawn() (*process, error) {
	logf, err := os.OpenFile(d.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("containerd log: %w", err)
	}
	cmd := exec.Command("containerd", "--config", d.configPath())
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group: a signal to the caller's group does not hit it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &process{cmd: cmd, started: time.Now(), done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := cmd.Start(); err != nil {
			logf.Close()
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("start containerd: %w", err)
	}
	_ = os.WriteFile(filepath.Join(d.dir, daemonPIDFile), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	return p, nil
}

// supervise is the Daemon's goroutine: it waits for the current process
// to die and, while the Daemon is supervised, starts another after the
// backoff. It returns once the Daemon is no longer supervised.
func (d *Daemon) supervise() {
	backoff := d.opts.minBackoff
	for {
		d.mu.Lock()
		p, on := d.proc, d.supervised
		d.mu.Unlock()
		if !on {
			return
		}
		select {
		case <-p.done:
		case <-d.wake: // Stop, Kill or Restart changed things
			continue
		}
		if time.Since(p.started) >= backoffReset {
			backoff = d.opts.minBackoff
		}
		d.opts.log.Warn("containerd died; restarting it", "dir", d.dir, "exit", p.err, "after", backoff)
		select {
		case <-time.After(backoff):
		case <-d.wake:
			continue
		}
		backoff = min(2*backoff, d.opts.maxBackoff)
		d.restartDead(p)
	}
}

// restartDead starts containerd again if p is still the Daemon's process
// and the Daemon is still supervised. A failed start is tried again after
// the next backoff (the new process record is already reaped).
func (d *Daemon) restartDead(p *process) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.supervised || d.proc != p {
		return
	}
	np, err := d.spawn()
	if err != nil {
		d.opts.log.Error("containerd restart failed", "dir", d.dir, "err", err)
		np = &process{started: time.Now(), done: make(chan struct{}), err: err}
		close(np.done)
	} else {
		d.opts.log.Warn("containerd restarted", "dir", d.dir, "pid", np.cmd.Process.Pid)
	}
	d.proc = np
	d.restarts++
}

// WaitReady waits until containerd answers (within ctx, at most 30 s): after a
// restart, clients may wait for it rather than poll. It fails with ErrStart
// when the Daemon is stopped or the wait ends.
func (d *Daemon) WaitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		d.mu.Lock()
		p, on := d.proc, d.supervised
		d.mu.Unlock()
		err := d.waitReady(ctx, p)
		if err == nil || !on || ctx.Err() != nil {
			return err
		}
		select { // p died: wait for the supervisor's next process
		case <-ctx.Done():
			return fmt.Errorf("containerd not answering on %s: %w: %w", d.Address(), ctx.Err(), ErrStart)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitReady polls the socket until process p answers a Version call.
func (d *Daemon) waitReady(ctx context.Context, p *process) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if err := d.ping(ctx); err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("containerd exited (%v): %s: %w", p.err, d.logTail(), ErrStart)
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

// unsupervise ends supervision (the supervisor goroutine returns) and
// returns the current process.
func (d *Daemon) unsupervise() *process {
	d.mu.Lock()
	d.supervised = false
	p := d.proc
	d.mu.Unlock()
	d.poke()
	return p
}

// poke wakes the supervisor.
func (d *Daemon) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Stop ends supervision, sends SIGTERM and waits up to timeout for the
// daemon to exit, then SIGKILLs it. Shims and containers keep running (as
// with a daemon restart); Clean removes them. Stop on a dead daemon
// returns at once.
func (d *Daemon) Stop(timeout time.Duration) {
	p := d.unsupervise()
	if p.cmd == nil || p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		d.kill(p)
	}
}

// Kill SIGKILLs the daemon and waits for it to be reaped, ending
// supervision: it stays down until Restart. (A crash, which the Daemon
// does restart, is a SIGKILL from elsewhere: syscall.Kill(d.PID(), ...).)
func (d *Daemon) Kill() { d.kill(d.unsupervise()) }

// kill SIGKILLs p and waits for it to be reaped.
func (d *Daemon) kill(p *process) {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Restart kills the daemon and starts it again on the same directory,
// waiting until it answers; supervision goes on (or resumes after Kill).
func (d *Daemon) Restart(ctx context.Context) error {
	d.mu.Lock()
	p := d.proc
	d.kill(p) // under mu: the supervisor does not restart p meanwhile
	np, err := d.spawn()
	if err != nil {
		d.mu.Unlock()
		return err
	}
	d.proc = np
	resume := !d.supervised
	d.supervised = true
	d.mu.Unlock()
	d.poke()
	if resume {
		go d.supervise()
	}
	return d.waitReady(ctx, np)
}

// Exited reports whether the current containerd process has ended (and
// not yet been restarted).
func (d *Daemon) Exited() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.proc.exited()
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
