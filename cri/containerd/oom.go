package containerd

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	containerd "github.com/containerd/containerd"
)

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// oomKilled reports whether the kernel's OOM killer acted in the
// container's memory cgroup (v1 memory.oom_control or v2 memory.events
// "oom_kill" counter). The cgroup exists until the task is deleted.
func oomKilled(ctx context.Context, ctr containerd.Container) bool {
	spec, err := ctr.Spec(ctx)
	if err != nil || spec.Linux == nil || spec.Linux.CgroupsPath == "" {
		return false
	}
	p := spec.Linux.CgroupsPath
	for _, f := range []string{
		filepath.Join(cgroupRoot, "memory", p, "memory.oom_control"),
		filepath.Join(cgroupRoot, p, "memory.events"),
		filepath.Join(cgroupRoot, "unified", p, "memory.events"),
	} {
		if n, ok := readCounter(f, "oom_kill"); ok && n > 0 {
			return true
		}
	}
	return false
}

// readCounter reads "key value" from a cgroup key/value file.
func readCounter(path, key string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
