package bbolt

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// lockHolder names the process holding path's flock, as Linux lists it in
// /proc/locks ("pid 1234 (minicluster --data-dir /tmp/orkit)"), or returns
// "" when it cannot tell (another OS, another PID namespace, the lock gone
// meanwhile). It is only used to word ErrLocked.
func lockHolder(path string) string {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return ""
	}
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 20509 fe:00:9979349 0 EOF"; waiters
		// have "->" after the number and are skipped.
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid <= 0 {
			return ""
		}
		return describePID(pid)
	}
	return ""
}

// describePID returns "pid N (command line)", marking this process.
func describePID(pid int) string {
	if pid == os.Getpid() {
		return fmt.Sprintf("pid %d (this process)", pid)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	cmd := strings.TrimSpace(strings.ReplaceAll(string(raw), "\x00", " "))
	if err != nil || cmd == "" {
		return fmt.Sprintf("pid %d", pid)
	}
	if len(cmd) > 200 {
		cmd = cmd[:200] + "..."
	}
	return fmt.Sprintf("pid %d (%s)", pid, cmd)
}
