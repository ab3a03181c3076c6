// Package kubelet is orkit's node agent: it makes one node's reality match
// the API server. It registers the Node, renews its Lease, and turns the
// pods bound to the node into sandboxes, volumes and containers through a
// cri.Runtime (and a cni.Network), watches them and reports their status.
//
// The pipeline of one pod sync (SyncPod), in the order Kubernetes runs it:
//
//	pod (informer, spec.nodeName=<node>) ─▶ pod worker (one goroutine per pod)
//	  ─▶ compute PodStatus ─▶ sync handlers (activeDeadlineSeconds)
//	  ─▶ admission handlers (resources fit, security profile)
//	  ─▶ cgroups per QoS (kubepods/<qos>/pod<uid>) ─▶ pod dirs (pods/<uid>/...)
//	  ─▶ volumes (emptyDir, hostPath, secret, configMap, downwardAPI, projected with service-account tokens, PVC)
//	  ─▶ sandbox (cri.RunPodSandbox) ─▶ network (cni SetUp, pod IP)
//	  ─▶ init containers in order ─▶ image pulls ─▶ containers ─▶ postStart
//	  ─▶ probes ─▶ status manager (async, coalesced pods/status writes)
//
// Deletion runs the reverse: preStop, SIGTERM, SIGKILL after the grace
// period, sandbox stop, CNI TearDown, RemovePodSandbox, volumes and
// directories removed, cgroup removed, then the pod is deleted with grace
// period 0 as confirmation.
//
// Goroutines: a Kubelet owns its pod informer (unless pods are fed to it by
// a shared source such as SimPool), one worker per pod, the runtime event
// follower, the status manager, the heartbeat loop (Lease and NodeStatus),
// its Event writer (a client/record.Writer, unless Config.Recorder is
// given; it flushes on stop) and, when configured, the HTTPS server (logs
// and exec; each exec session owns its stream reader until the command
// ends or the connection drops, which kills the command).
// All stop when the context given to Run ends; containers keep running,
// and the next Kubelet on the same node adopts them (same container IDs,
// no restarts).
//
// Events: each sync step records what Kubernetes' kubelet records, with
// its reasons and wording (events.go): Pulling/Pulled (or "already present
// on machine"), Created, Started, Failed, BackOff, Unhealthy, Killing,
// FailedPostStartHook, SandboxChanged, FailedMount..., about the pod or,
// for a container, with involvedObject.fieldPath spec.containers{name}.
//
// Simulated nodes (SimPool) run the same Kubelet over cri/fake with no
// disk, cgroup, network or Event work, sharing one client, one pod informer and
// one heartbeat loop between all of them.
package kubelet
