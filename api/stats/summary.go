package stats

import "github.com/orkit/orkit/api/meta"

// Summary is a node's figures and its pods'.
type Summary struct {
	Node NodeStats  `json:"node"`
	Pods []PodStats `json:"pods"`
}

// NodeStats are the figures of the whole node.
type NodeStats struct {
	NodeName  string       `json:"nodeName"`
	StartTime meta.Time    `json:"startTime"`
	CPU       *CPUStats    `json:"cpu,omitempty"`
	Memory    *MemoryStats `json:"memory,omitempty"`
}

// PodReference names a pod.
type PodReference struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
}

// PodStats are the figures of one pod (its cgroup) and its containers.
type PodStats struct {
	PodRef     PodReference     `json:"podRef"`
	StartTime  meta.Time        `json:"startTime"`
	Containers []ContainerStats `json:"containers"`
	CPU        *CPUStats        `json:"cpu,omitempty"`
	Memory     *MemoryStats     `json:"memory,omitempty"`
}

// ContainerStats are the figures of one container.
type ContainerStats struct {
	Name      string       `json:"name"`
	StartTime meta.Time    `json:"startTime"`
	CPU       *CPUStats    `json:"cpu,omitempty"`
	Memory    *MemoryStats `json:"memory,omitempty"`
}

// CPUStats is CPU time used: UsageCoreNanoSeconds is cumulative since the
// cgroup was made; UsageNanoCores, when the kubelet knows it, the recent
// rate. A metrics server computes rates from two samples of the
// cumulative figure.
type CPUStats struct {
	Time                 meta.Time `json:"time"`
	UsageNanoCores       *uint64   `json:"usageNanoCores,omitempty"`
	UsageCoreNanoSeconds *uint64   `json:"usageCoreNanoSeconds,omitempty"`
}

// MemoryStats is memory in use: WorkingSetBytes is what the Metrics API
// reports (usage minus inactive file pages).
type MemoryStats struct {
	Time            meta.Time `json:"time"`
	UsageBytes      *uint64   `json:"usageBytes,omitempty"`
	WorkingSetBytes *uint64   `json:"workingSetBytes,omitempty"`
}
