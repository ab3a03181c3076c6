package cni

import "errors"

// Sentinel errors. Functions wrap them with the network, sandbox or plugin
// concerned; check with errors.Is.
var (
	// ErrInvalidConfig: a Config, a CNI configuration file or a
	// HostGuardConfig is malformed or inconsistent.
	ErrInvalidConfig = errors.New("invalid network configuration")
	// ErrNoConfig: the configuration directory holds no usable CNI
	// configuration file.
	ErrNoConfig = errors.New("no usable CNI network configuration")
	// ErrInvalidPod: a PodNetwork is malformed (empty or invalid sandbox ID,
	// missing netns path, bad port mapping).
	ErrInvalidPod = errors.New("invalid pod network request")
	// ErrSetUp: a plugin failed while adding a pod to the network. The
	// wrapped error names the plugin.
	ErrSetUp = errors.New("network set up failed")
	// ErrTearDown: a plugin failed while removing a pod from the network.
	ErrTearDown = errors.New("network tear down failed")
	// ErrCheck: a plugin reported that a pod's network is not as set up.
	ErrCheck = errors.New("network check failed")
	// ErrNotSetUp: Check found no record of the sandbox being set up.
	ErrNotSetUp = errors.New("sandbox network not set up")
	// ErrNotReady: the network cannot serve pods (configuration or plugin
	// binaries missing).
	ErrNotReady = errors.New("network not ready")
	// ErrInvalidDNS: a DNS configuration or resolv.conf is malformed or
	// exceeds the resolver's limits.
	ErrInvalidDNS = errors.New("invalid DNS configuration")
	// ErrHostGuard: installing or removing the host guard routes failed.
	ErrHostGuard = errors.New("host guard")
)
