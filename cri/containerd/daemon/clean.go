package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/namespaces"
)

// Clean stops the daemon (and its supervision) and removes everything it
// made: what Shutdown removes, then the directory. It returns the errors
// it met but keeps going.
func (d *Daemon) Clean(ctx context.Context) error {
	err := d.Shutdown(ctx)
	if rerr := os.RemoveAll(d.dir); rerr != nil {
		err = errors.Join(err, fmt.Errorf("remove %s: %w", d.dir, rerr))
	}
	return err
}

// Shutdown stops the daemon (and its supervision) and removes what it runs
// and mounts, keeping its directory (images and other content stay for the
// next Start): every task and container of every namespace, through the
// daemon while it answers (bounded by ctx and 30 s, so a dead daemon
// delays nothing); the daemon itself; shims left over from it (found by
// their -address argument, killed by PID with their children); the
// cgroups of their tasks; and every mount under its directory (deepest
// first). It returns the errors it met but keeps going.
func (d *Daemon) Shutdown(ctx context.Context) error {
	var errs []error
	if p := d.unsupervise(); !p.exited() {
		errs = append(errs, d.deleteAll(ctx))
		d.Stop(10 * time.Second)
	}
	errs = append(errs, killShims(d.Address()))
	removeTaskCgroups(d.dir)
	errs = append(errs, UnmountUnder(d.dir))
	return errors.Join(errs...)
}

// deleteAll kills and deletes every task and container in every namespace.
func (d *Daemon) deleteAll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := containerd.New(d.Address())
	if err != nil {
		return fmt.Errorf("clean: connect: %w", err)
	}
	defer c.Close()
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return fmt.Errorf("clean: list namespaces: %w", err)
	}
	var errs []error
	defer removeNamespaceCgroups(nss)
	for _, ns := range nss {
		nctx := namespaces.WithNamespace(ctx, ns)
		ctrs, err := c.Containers(nctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, ctr := range ctrs {
			if t, err := ctr.Task(nctx, nil); err == nil {
				_, _ = t.Delete(nctx, containerd.WithProcessKill)
			}
			if err := ctr.Delete(nctx, containerd.WithSnapshotCleanup); err != nil {
				errs = append(errs, fmt.Errorf("clean: delete container %s/%s: %w", ns, ctr.ID(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// removeNamespaceCgroups removes the (empty) per-namespace parent cgroups
// runc made under each hierarchy; busy ones (shared with another daemon
// using the same namespace name) stay.
func removeNamespaceCgroups(nss []string) {
	hier, err := os.ReadDir("/sys/fs/cgroup")
	if err != nil {
		return
	}
	for _, ns := range nss {
		if ns == "" || strings.ContainsAny(ns, "/.") {
			continue
		}
		_ = syscall.Rmdir(filepath.Join("/sys/fs/cgroup", ns))
		for _, h := range hier {
			_ = syscall.Rmdir(filepath.Join("/sys/fs/cgroup", h.Name(), ns))
		}
	}
}

// killShims SIGKILLs the runc shims serving address, and their children.
func killShims(address string) error {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("clean: list processes: %w", err)
	}
	parents := map[int]int{}
	var shims []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		parents[pid] = ppid(pid)
		cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 0 && strings.Contains(filepath.Base(args[0]), "containerd-shim") && hasArgPair(args, "-address", address) {
			shims = append(shims, pid)
		}
	}
	for _, shim := range shims {
		for pid, parent := range parents {
			if parent == shim {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		_ = syscall.Kill(shim, syscall.SIGKILL)
	}
	return nil
}

func hasArgPair(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}

func ppid(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// MountsUnder returns the mount points at or below dir, deepest first.
func MountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	defer f.Close()
	dir = filepath.Clean(dir)
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, ...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnmountUnder lazily unmounts every mount at or below dir, deepest first.
func UnmountUnder(dir string) error {
	mps, err := MountsUnder(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, mp := range mps {
		if err := syscall.Unmount(mp, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", mp, err))
		}
	}
	return errors.Join(errs...)
}
