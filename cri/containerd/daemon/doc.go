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
// Clean removes what a daemon made (containers, tasks, mounts, cgroups);
// SweepStale removes the directories of daemons whose owner process died.
// CheckPrerequisites says, wrapping ErrMissingPrerequisite, why a daemon
// cannot run on this machine.
package daemon
