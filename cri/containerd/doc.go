// Package containerd implements cri.Runtime on containerd through its Go
// client (v1.7 client, compatible with a 1.6 daemon).
//
// Layout in containerd: everything lives in one containerd namespace
// (default "orkit"). A sandbox is a containerd container running the pause
// image (default orkit.local/pause:v1, which no registry serves: build and
// import it with the images package, as images' doc shows); its ID is derived from the pod's metadata, so creating the same
// sandbox twice fails atomically. It holds the pod's IPC and UTS namespaces
// (and the PID namespace with NamespacePod), and joins a network namespace
// the runtime creates as a bind mount under <state dir>/netns/<id>, which
// the caller hands to CNI. App containers join those namespaces through
// their OCI spec.
//
// State: all of it is recoverable from containerd after a restart of the
// caller. The configs are stored as container extensions; the mutable
// status (started/finished time, exit code, reason, pod IPs) as container
// labels under io.orkit.*. When a container's task exits the runtime
// records its exit in labels and deletes the task (freeing the shim); if
// the runtime is not running at that moment, the next New does it.
//
// Logs: each container's stdout and stderr reach the runtime through FIFOs
// (kept open by the shim, so the container never sees EPIPE) and a copier
// goroutine per container writes them to the container's log file in the
// CRI format. The copiers belong to the Runtime; Close stops them and the
// next New re-attaches to running containers.
//
// Events: the runtime follows containerd's event stream (task exits and
// OOMs of its namespace, resubscribing after a daemon restart and then
// reconciling exits it may have missed). A task exit makes the runtime
// record the exit, and the recording publishes CONTAINER_EXITED; CREATED,
// STARTED and DELETED are published by the calls that cause them, OOM when
// containerd reports it. So each event is published once and in order,
// also when containerd's stream was down at the time.
//
// Image volumes (cri.Mount.Image): the image's layers become one
// read-only snapshot view (key orkit-imagevolume/<sandbox>/<manifest>,
// labelled with its sandbox and as a GC root), mounted once per sandbox
// and image under <state dir>/sandboxes/<id>/image-volumes/<manifest>
// (read-only, not noexec: as containerd's CRI) and bound read-only into
// each container that asks, ImageSubPath resolved inside the image.
// RemovePodSandbox unmounts them and removes the views; New removes views
// whose sandbox is gone.
//
// Pulls: WithRegistryMirror sends a registry's pulls to a mirror only.
//
// Shims: every container of a sandbox carries the runc v2 shim's group
// annotation, so one shim process serves the whole pod.
//
// Goroutines: the event loop, short-lived exit recorders, one goroutine
// per Events subscription and one log copier pair per running container,
// all owned by the Runtime; Close stops them all.
package containerd
