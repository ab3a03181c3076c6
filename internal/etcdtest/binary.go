package etcdtest

import (
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Version is the etcd server version scripts/setup.sh builds (from the Go
// module go.etcd.io/etcd/server/v3) and Binary accepts.
const Version = "3.7.3"

// ErrNoBinary: no etcd server binary of Version was found.
var ErrNoBinary = errors.New("etcd server binary not found")

// Binary returns the path of the etcd server binary: $ETCD_BIN if set,
// else the first of PATH's etcd, $GOBIN/etcd, /usr/local/bin/etcd and
// $GOPATH/bin/etcd (where scripts/setup.sh puts it) that reports Version. The error wraps
// ErrNoBinary and says where it looked and how to build one.
func Binary() (string, error) {
	if p := os.Getenv("ETCD_BIN"); p != "" {
		if err := checkVersion(p); err != nil {
			return "", fmt.Errorf("%w: $ETCD_BIN %v", ErrNoBinary, err)
		}
		return p, nil
	}
	var candidates []string
	if p, err := exec.LookPath("etcd"); err == nil {
		candidates = append(candidates, p)
	}
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		candidates = append(candidates, filepath.Join(gobin, "etcd"))
	}
	candidates = append(candidates, "/usr/local/bin/etcd", filepath.Join(gopath(), "bin", "etcd"))
	var problems []string
	for _, p := range candidates {
		err := checkVersion(p)
		if err == nil {
			return p, nil
		}
		problems = append(problems, err.Error())
	}
	return "", fmt.Errorf("%w (want etcd %s; %s); build it with scripts/setup.sh or set ETCD_BIN",
		ErrNoBinary, Version, strings.Join(problems, "; "))
}

// gopath is the first GOPATH entry, as the go command computes it.
func gopath() string {
	return filepath.SplitList(build.Default.GOPATH)[0]
}

// checkVersion runs p --version and checks it reports Version.
func checkVersion(p string) error {
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("%s: missing", p)
	}
	out, err := exec.Command(p, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %v", p, err)
	}
	first, _, _ := bytes.Cut(out, []byte("\n"))
	if string(first) != "etcd Version: "+Version {
		return fmt.Errorf("%s is %q, not %s", p, first, Version)
	}
	return nil
}

// Require returns the etcd binary, skipping the test without it (failing
// it when CI=true).
func Require(t testing.TB) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		Unavailable(t, err.Error())
	}
	return bin
}

// Unavailable skips the test with reason, or fails it when CI=true (the
// convention of internal/testenv.Unavailable).
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("prerequisite missing (CI=true, so this fails instead of skipping): %s", reason)
	}
	t.Skipf("prerequisite missing: %s", reason)
}
