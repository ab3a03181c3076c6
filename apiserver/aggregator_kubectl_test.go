package apiserver_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlAPIServiceUnavailable: an APIService whose Service does not
// exist is listed with Available False (ServiceNotFound) and its
// group/version answers 503 instead of 404; an invalid APIService gets
// kube's messages.
func TestKubectlAPIServiceUnavailable(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.widgets.example.com}
spec:
  group: widgets.example.com
  version: v1
  service: {namespace: default, name: widgets}
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 1000
  versionPriority: 15
`, "apply", "-f", "-")
	re := regexp.MustCompile(`v1.widgets.example.com\s+default/widgets\s+False \(ServiceNotFound\)`)
	deadline := time.Now().Add(20 * time.Second)
	for out := ""; !re.MatchString(out); out = mustKubectl(t, c.admin, "", "get", "apiservice", "v1.widgets.example.com") {
		require.True(t, time.Now().Before(deadline), "APIService not reported unavailable: %s", out)
		time.Sleep(100 * time.Millisecond) // polling kubectl: nothing to wait on
	}
	_, errOut, err := kubectl(t, c.admin, "", "get", "--raw", "/apis/widgets.example.com/v1/namespaces/default/widgets")
	require.Error(t, err)
	assert.Contains(t, errOut, "the server is currently unable to handle the request")
	assert.Equal(t, "443", mustKubectl(t, c.admin, "", "get", "apiservice", "v1.widgets.example.com", "-o", "jsonpath={.spec.service.port}"), "defaulted")

	_, errOut, err = kubectl(t, c.admin, `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v2.widgets.example.com}
spec:
  group: widgets.example.com
  version: v1
  service: {namespace: default, name: widgets}
  insecureSkipTLSVerify: true
  caBundle: Zm9v
  groupPriorityMinimum: 0
  versionPriority: 15
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`The APIService "v2.widgets.example.com" is invalid`,
		`metadata.name: Invalid value: "v2.widgets.example.com": must be v1.widgets.example.com`,
		"spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
		"spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"} {
		assert.Contains(t, errOut, want)
	}
}
