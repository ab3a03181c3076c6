package apiserver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKubectlStatusAndGeneration: what kubectl users see of status on
// create and metadata.generation, as on Kubernetes: a Node applied with a
// status keeps it; a Service and a Secret have no generation; a
// Deployment starts at 1 and counts spec changes.
func TestKubectlStatusAndGeneration(t *testing.T) {
	c := startCluster(t)
	node := `apiVersion: v1
kind: Node
metadata:
  name: fake-1
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: 3500m, memory: 7Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady}
  addresses:
  - {type: InternalIP, address: 10.0.0.7}
`
	mustKubectl(t, c.admin, node, "create", "-f", "-")
	out := mustKubectl(t, c.admin, "", "get", "node", "fake-1", "-o",
		`jsonpath={.status.allocatable.pods} {.status.capacity.cpu} {.status.conditions[0].type}={.status.conditions[0].status} {.status.addresses[0].address} [{.metadata.generation}]`)
	assert.Equal(t, "110 4 Ready=True 10.0.0.7 []", out)
	out = mustKubectl(t, c.admin, "", "get", "nodes")
	assert.Contains(t, out, "fake-1")
	assert.Contains(t, strings.Fields(out), "Ready")

	mustKubectl(t, c.admin, "", "create", "service", "clusterip", "web", "--tcp=80:8080")
	mustKubectl(t, c.admin, "", "create", "secret", "generic", "s", "--from-literal=k=v")
	mustKubectl(t, c.admin, "", "label", "service", "web", "x=y")
	for _, obj := range []string{"service/web", "secret/s"} {
		out = mustKubectl(t, c.admin, "", "get", obj, "-o", "jsonpath=[{.metadata.generation}]")
		assert.Equal(t, "[]", out, obj)
	}

	mustKubectl(t, c.admin, "", "create", "deployment", "d", "--image=registry.example/app:1")
	assert.Equal(t, "1", mustKubectl(t, c.admin, "", "get", "deployment", "d", "-o", "jsonpath={.metadata.generation}"))
	mustKubectl(t, c.admin, "", "scale", "deployment", "d", "--replicas=3")
	assert.Equal(t, "2", mustKubectl(t, c.admin, "", "get", "deployment", "d", "-o", "jsonpath={.metadata.generation}"))
}
