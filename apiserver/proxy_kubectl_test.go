package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlProxySubresourceErrors checks what `kubectl get --raw` meets
// on the proxy subresources when there is nothing to reach: kube's
// statuses and messages. (A proxied request that reaches a real pod is
// in the minicluster's demo: pods and Services get real IPs only on real
// nodes.)
func TestKubectlProxySubresourceErrors(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: local, namespace: default}
spec:
  containers: [{name: c, image: orkit.local/hello:v1, ports: [{containerPort: 8080}]}]
`, "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "patch", "pod", "local", "--subresource=status", "--type=merge",
		"-p", `{"status":{"podIP":"127.0.0.1","podIPs":[{"ip":"127.0.0.1"}]}}`)

	tests := []struct {
		name, kubeconfig, path, want string
	}{
		{"service without endpoints", c.admin, "/api/v1/namespaces/default/services/web:80/proxy/",
			`Error from server (ServiceUnavailable): no endpoints available for service "web"`},
		{"service port that does not exist", c.admin, "/api/v1/namespaces/default/services/web:81/proxy/",
			`no service port 81 found for service "web"`},
		{"missing service", c.admin, "/api/v1/namespaces/default/services/nope/proxy/", `Error from server (NotFound): services "nope" not found`},
		{"loopback pod IP refused", c.admin, "/api/v1/namespaces/default/pods/local/proxy/", `Error from server (BadRequest): address not allowed`},
		{"malformed name", c.admin, "/api/v1/namespaces/default/pods/a:b:c:d/proxy/", `invalid proxy name "a:b:c:d"`},
		{"bad scheme", c.admin, "/api/v1/namespaces/default/pods/ftp:local:21/proxy/", `invalid proxy name "ftp:local:21"`},
		{"missing node", c.admin, "/api/v1/nodes/nope/proxy/healthz", `Error from server (NotFound): nodes "nope" not found`},
		{"unauthorized user", c.dev, "/api/v1/namespaces/default/services/web:80/proxy/",
			`User "dev" cannot get resource "services/proxy" in API group "" in the namespace "default"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, err := kubectl(t, tt.kubeconfig, "", "get", "--raw", tt.path)
			require.Error(t, err)
			assert.Contains(t, errOut, tt.want)
		})
	}
}
