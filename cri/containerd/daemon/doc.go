// Package daemon starts and stops a private containerd daemon as a child
// process: its own root, state, sockets and config.toml (cgroupfs, the
// runc v2 shim, the CRI plugin disabled so it starts fast) under one
// directory, so a program can run real nodes without touching the host's
// containerd (if there is one). The minicluster starts its nodes'
// containerd through it, the test helper internal/testenv its tests'.
//
//	d, err := daemon.Start(ctx, "/run/mycluster/containerd") // needs root, containerd, runc
//	defer d.Stop(10 * time.Second)
//	rt, err := containerd.New(ctx, d.Address())               // cri/containerd
//
// The Daemon supervises containerd: when the process dies it is started
// again on the same directory after a backoff (100ms doubling to 30s, by
// default; WithRestartBackoff), so a node's runtime comes back by itself
// and the running pods' shims, which outlive containerd, are adopted
// again. Stop and Clean end supervision; Kill stops it hard and keeps it
// down until Restart. containerd gets SIGKILL when the process that
// started it dies (a parent-death signal, kept tied to a live thread), so
// a killed test binary or program never leaves it running; its shims
// outlive it, for SweepStale or the next Start to remove or adopt.
//
// Clean removes what a daemon made (containers, tasks, mounts, cgroups);
// SweepStale removes the directories of daemons whose owner process died.
// CheckPrerequisites says, wrapping ErrMissingPrerequisite, why a daemon
// cannot run on this machine.
package daemon
