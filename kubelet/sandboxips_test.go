package kubelet

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/core"
)

// TestWithSandboxIPs: the downward API's status.podIP(s) resolve to the
// sandbox's IPs before the status manager has written them to the pod.
func TestWithSandboxIPs(t *testing.T) {
	cases := []struct {
		name     string
		status   core.PodStatus
		ps       podState
		wantIP   string
		wantIPs  string
		sameInst bool
	}{
		{"sandbox IPs fill an empty status", core.PodStatus{},
			podState{networkReady: true, podIPs: []string{"10.244.1.5", "fd00::5"}}, "10.244.1.5", "10.244.1.5,fd00::5", false},
		{"the API object's IP wins", core.PodStatus{PodIP: "10.244.1.9", PodIPs: []core.PodIP{{IP: "10.244.1.9"}}},
			podState{networkReady: true, podIPs: []string{"10.244.1.5"}}, "10.244.1.9", "10.244.1.9", true},
		{"no network yet", core.PodStatus{}, podState{}, "", "", true},
		{"network not ready", core.PodStatus{}, podState{podIPs: []string{"10.244.1.5"}}, "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &core.Pod{Status: c.status}
			got := withSandboxIPs(pod, &c.ps)
			assert.Equal(t, c.wantIP, got.Status.PodIP)
			assert.Equal(t, c.wantIPs, podIPs(got))
			assert.Equal(t, c.sameInst, got == pod)
			assert.Equal(t, c.status, pod.Status, "the pod passed in is not modified")
		})
	}
}
