// Package cri defines orkit's container runtime interface: what the kubelet
// asks of a node's container runtime. It follows the semantics of
// Kubernetes' CRI v1 (RuntimeService and ImageService) with plain Go value
// types instead of protobuf messages.
//
// A pod runs in a sandbox: a set of Linux namespaces (network, IPC, UTS and
// optionally PID) held open by the runtime, into which the pod's containers
// are placed. Pod networking is not the runtime's job here: RunPodSandbox
// creates the sandbox's network namespace and reports its path; the caller
// sets up networking in it (package cni) and records the resulting IPs with
// UpdatePodSandboxNetwork so that PodSandboxStatus reports them, also after
// a restart of the caller.
//
// Runtime is composed of small interfaces (SandboxManager,
// ContainerManager, ImageManager, EventSource, StatusReporter) so that a
// consumer can ask for just the part it uses. cri/containerd implements it
// on containerd; cri/fake simulates it in memory; cri/critest is the
// conformance suite both pass.
//
// Errors are the sentinels in errors.go, wrapped with the subject; check
// them with errors.Is.
package cri
