package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Files Start writes in the daemon's directory.
const (
	ownerPIDFile  = "owner.pid"      // the process that started the daemon
	daemonPIDFile = "containerd.pid" // the daemon
)

// SweepStale removes daemon directories parent/<prefix>* whose owner
// process is gone (a test binary killed by a timeout): it kills their
// daemon (checked to be containerd) and shims by PID, unmounts what is
// mounted under them and removes them. Directories of live owners, and
// directories without an owner file, are left alone.
func SweepStale(parent, prefix string) error {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return fmt.Errorf("sweep %s: %w", parent, err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		owner, ok := readPID(filepath.Join(dir, ownerPIDFile))
		if !ok || alive(owner) {
			continue
		}
		if pid, ok := readPID(filepath.Join(dir, daemonPIDFile)); ok && isContainerd(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		d := &Daemon{dir: dir}
		errs = append(errs, killShims(d.Address()))
		removeTaskCgroups(dir)
		errs = append(errs, UnmountUnder(dir))
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func readPID(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil && pid > 0
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func isContainerd(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	return err == nil && filepath.Base(strings.SplitN(string(b), "\x00", 2)[0]) == "containerd"
}

// removeTaskCgroups removes the (emptied) cgroups of the tasks whose
// bundles are under the daemon's state directory, as named by each
// bundle's config.json.
func removeTaskCgroups(dir string) {
	bundles, _ := filepath.Glob(filepath.Join(dir, "state", "io.containerd.runtime.v2.task", "*", "*", "config.json"))
	hier, _ := os.ReadDir("/sys/fs/cgroup")
	for _, b := range bundles {
		var spec struct {
			Linux struct {
				CgroupsPath string `json:"cgroupsPath"`
			} `json:"linux"`
		}
		raw, err := os.ReadFile(b)
		if err != nil || json.Unmarshal(raw, &spec) != nil {
			continue
		}
		p := filepath.Clean("/" + spec.Linux.CgroupsPath)
		if p == "/" || strings.Contains(spec.Linux.CgroupsPath, "..") {
			continue
		}
		for i := 0; i < 50; i++ { // the killed processes may take a moment to be reaped
			busy := false
			for _, h := range hier {
				if err := syscall.Rmdir(filepath.Join("/sys/fs/cgroup", h.Name(), p)); errors.Is(err, syscall.EBUSY) {
					busy = true
				}
			}
			_ = syscall.Rmdir(filepath.Join("/sys/fs/cgroup", p))
			if !busy {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
