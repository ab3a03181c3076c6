package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKubectlIngress: `kubectl create ingress` (which got a 404 before
// networking.k8s.io was served), kube's table columns for Ingresses and
// IngressClasses, and kube's validation messages through kubectl.
func TestKubectlIngress(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec:
  controller: k8s.io/ingress-nginx
  parameters: {apiGroup: k8s.example.com, kind: IngressParameters, name: external-lb}
`, "apply", "-f", "-")
	out := mustKubectl(t, c.admin, "", "create", "ingress", "web", "--class=nginx",
		"--rule=foo.com/bar=svc1:8080,tls=my-cert", "--rule=bar.com/*=svc2:http")
	assert.Contains(t, out, "ingress.networking.k8s.io/web created")
	out = mustKubectl(t, c.admin, "", "get", "ingress", "web", "-o", "jsonpath={.spec.rules[0].http.paths[0].pathType} {.spec.rules[1].http.paths[0].pathType} {.spec.tls[0].secretName}")
	assert.Equal(t, "Exact Prefix my-cert", out)
	assert.Regexp(t, `NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nweb\s+nginx\s+foo.com,bar.com\s+80, 443\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "ing"))
	assert.Regexp(t, `NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nnginx\s+k8s.io/ingress-nginx\s+IngressParameters.k8s.example.com/external-lb\s+\d+s`,
		mustKubectl(t, c.admin, "", "get", "ingressclass"))
	assert.Equal(t, "Cluster", mustKubectl(t, c.admin, "", "get", "ingressclass", "nginx", "-o", "jsonpath={.spec.parameters.scope}"), "defaulted")

	_, errOut, err := kubectl(t, c.admin, `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad, namespace: default}
spec:
  rules:
  - host: 10.0.0.1
    http:
      paths: [{path: api, pathType: Prefix, backend: {service: {name: web, port: {name: http, number: 80}}}}]
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`The Ingress "bad" is invalid`, `spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`,
		`spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path`, "cannot set both port name & port number"} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.dev, "", "get", "ingress")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot list resource "ingresses" in API group "networking.k8s.io"`)
}

// TestKubectlDefaultIngressClass: the DefaultIngressClass admission
// plugin gives an Ingress created without a class the IngressClass
// annotated as default (the newest of several), keeps an explicit class
// and leaves Ingresses alone while no class is default.
func TestKubectlDefaultIngressClass(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, "", "create", "ingress", "before", "--rule=a.example.com/=web:80")
	assert.Empty(t, mustKubectl(t, c.admin, "", "get", "ingress", "before", "-o", "jsonpath={.spec.ingressClassName}"), "no default class yet")

	mustKubectl(t, c.admin, `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: first, annotations: {ingressclass.kubernetes.io/is-default-class: "true"}}
spec: {controller: example.com/first}
`, "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "create", "ingress", "one", "--rule=a.example.com/=web:80")
	assert.Equal(t, "first", mustKubectl(t, c.admin, "", "get", "ingress", "one", "-o", "jsonpath={.spec.ingressClassName}"))
	mustKubectl(t, c.admin, "", "create", "ingress", "explicit", "--class=other", "--rule=a.example.com/=web:80")
	assert.Equal(t, "other", mustKubectl(t, c.admin, "", "get", "ingress", "explicit", "-o", "jsonpath={.spec.ingressClassName}"))

	// A second default created later (timestamps have whole seconds, so
	// wait until the clock has moved past the first's) is the newer one.
	first := mustKubectl(t, c.admin, "", "get", "ingressclass", "first", "-o", "jsonpath={.metadata.creationTimestamp}")
	require.Eventually(t, func() bool { return time.Now().UTC().Format(time.RFC3339) > first }, 5*time.Second, 50*time.Millisecond)
	mustKubectl(t, c.admin, `
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: second, annotations: {ingressclass.kubernetes.io/is-default-class: "true"}}
spec: {controller: example.com/second}
`, "apply", "-f", "-")
	mustKubectl(t, c.admin, "", "create", "ingress", "two", "--rule=a.example.com/=web:80")
	assert.Equal(t, "second", mustKubectl(t, c.admin, "", "get", "ingress", "two", "-o", "jsonpath={.spec.ingressClassName}"))
	assert.Empty(t, mustKubectl(t, c.admin, "", "get", "ingress", "before", "-o", "jsonpath={.spec.ingressClassName}"), "existing Ingresses are not changed")
}
