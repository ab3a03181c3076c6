// Package containerdproc starts and stops a private containerd daemon as a
// child process: its own root, state, sockets and config.toml (cgroupfs,
// the runc v2 shim, the CRI plugin disabled so it starts fast) under one
// directory. Tests (internal/testenv) and the minicluster start containerd
// through it; Clean removes what a daemon made, mounts included.
package containerdproc
