package cri

import "time"

// ContainerEventType says what happened to a container.
type ContainerEventType string

// Container event types.
const (
	ContainerEventCreated ContainerEventType = "CONTAINER_CREATED"
	ContainerEventStarted ContainerEventType = "CONTAINER_STARTED"
	ContainerEventExited  ContainerEventType = "CONTAINER_EXITED"
	// ContainerEventOOM: the kernel's OOM killer hit the container; an
	// EXITED event normally follows.
	ContainerEventOOM     ContainerEventType = "CONTAINER_OOM"
	ContainerEventDeleted ContainerEventType = "CONTAINER_DELETED"
)

// ContainerEvent is one lifecycle event of an application container
// (never of the sandbox's own process).
type ContainerEvent struct {
	ContainerID  string
	PodSandboxID string
	Type         ContainerEventType
	Time         time.Time
	// ExitCode is set for ContainerEventExited.
	ExitCode int32
}
