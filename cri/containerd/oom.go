package containerd

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	containerd "github.com/containerd/containerd"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/typeurl/v2"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// cgroupRoot is where the cgroup hierarchies are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// oomKilled reports whether the kernel's OOM killer acted in the
// container's memory cgroup (v1 memory.oom_control or v2 memory.events
// "oom_kill" counter). The cgroup exists until the task is deleted. The
// counter is raised before the victim dies, so it answers even when
// containerd's OOM event arrives after the exit.
func oomKilled(ctx context.Context, ctr containerd.Container) bool {
	spec, err := ctr.Spec(ctx)
	if err != nil {
		return false
	}
	return oomKilledIn(spec, ctr.ID())
}

// oomKilledRecord is oomKilled for a container record, whose spec it
// decodes.
func oomKilledRecord(c containers.Container) bool {
	if c.Spec == nil {
		return false
	}
	v, err := typeurl.UnmarshalAny(c.Spec)
	if err != nil {
		return false
	}
	spec, ok := v.(*specs.Spec)
	return ok && oomKilledIn(spec, c.ID)
}

// oomKilledIn reads the OOM kill counter of the cgroup spec places
// container id in; a spec without a cgroups path runs, as runc places it,
// in a cgroup named after the container at the root.
func oomKilledIn(spec *specs.Spec, id string) bool {
	if spec == nil || spec.Linux == nil {
		return false
	}
	p := spec.Linux.CgroupsPath
	if p == "" {
		p = id
	}
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
