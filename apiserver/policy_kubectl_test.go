package apiserver_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const replicaPolicy = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= 5"
    message: "replicas must be no greater than 5"
  - expression: "!has(params.data) || !has(params.data.maxReplicas) || object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas ' + string(object.spec.replicas) + ' exceed the limit of ' + params.data.maxReplicas"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-binding}
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {name: replica-limits, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {environment: test}}
---
apiVersion: v1
kind: Namespace
metadata: {name: test, labels: {environment: test}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limits, namespace: test}
data: {maxReplicas: "3"}
`

const bigDeployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: test}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: hello, image: orkit.local/hello:v1}]}
`

// TestKubectlValidatingAdmissionPolicy: a CEL policy with a ConfigMap
// parameter denies Deployments with more than 5 replicas (and, through
// the parameter, more than 3) with kube's wording; namespaces the binding
// does not select are untouched; a Warn binding warns; malformed policies
// and bindings get kube's field errors; the dev user cannot create one.
func TestKubectlValidatingAdmissionPolicy(t *testing.T) {
	c := startCluster(t)
	mustKubectl(t, c.admin, replicaPolicy, "apply", "-f", "-")
	_, errOut := kubectlUntil(t, c.admin, bigDeployment, func(_, errOut string, err error) bool {
		return err != nil && strings.Contains(errOut, "denied request")
	},
		"apply", "-f", "-")
	assert.Contains(t, errOut, `The deployments "web" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no greater than 5`)
	_, errOut, err := kubectl(t, c.admin, "", "-n", "test", "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=4")
	require.Error(t, err)
	assert.Contains(t, errOut, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas 4 exceed the limit of 3`)
	mustKubectl(t, c.admin, "", "-n", "test", "create", "deployment", "web", "--image=orkit.local/hello:v1", "--replicas=2")
	mustKubectl(t, c.admin, "", "create", "deployment", "big", "--image=orkit.local/hello:v1", "--replicas=6") // namespace default is not selected
	mustKubectl(t, c.admin, "", "-n", "test", "scale", "deployment", "web", "--replicas=7")                    // deployments/scale: the rules name deployments only

	assert.Regexp(t, `NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\nmax-replicas\s+2\s+v1/ConfigMap\s+\d+s`, mustKubectl(t, c.admin, "", "get", "validatingadmissionpolicies"))
	assert.Regexp(t, `NAME\s+POLICYNAME\s+PARAMREF\s+AGE\nmax-replicas-binding\s+max-replicas\s+\*/replica-limits\s+\d+s`, mustKubectl(t, c.admin, "", "get", "validatingadmissionpolicybindings"))
	assert.Equal(t, "1 {}", mustKubectl(t, c.admin, "", "get", "validatingadmissionpolicy", "max-replicas", "-o", "jsonpath={.status.observedGeneration} {.status.typeChecking}"))

	mustKubectl(t, c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-latest}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: "do not use :latest"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-latest-warn}
spec:
  policyName: no-latest
  validationActions: [Warn]
`, "apply", "-f", "-")
	kubectlUntil(t, c.admin, "", func(_, errOut string, err error) bool {
		return err == nil && strings.Contains(errOut, "Warning: Validation failed for ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-warn': do not use :latest")
	}, "run", "latest", "--image=orkit.local/hello:latest", "--dry-run=server")

	_, errOut, err = kubectl(t, c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  failurePolicy: Maybe
  paramKind: {apiVersion: "v1", kind: ""}
  validations:
  - expression: "object.spec.replicas >"
  - expression: "true"
    reason: Teapot
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`The ValidatingAdmissionPolicy "broken" is invalid`,
		`spec.paramKind.kind: Required value`, `spec.matchConstraints: Required value`,
		`spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"`,
		`spec.validations[0].expression: Invalid value: "object.spec.replicas >": compilation failed: ERROR: <input>:1:23: Syntax error`,
		`spec.validations[1].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"`} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.admin, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: broken}
spec:
  validationActions: [Deny, Warn, Shout]
  paramRef: {name: a, selector: {}}
`, "apply", "-f", "-")
	require.Error(t, err)
	for _, want := range []string{`spec.policyName: Required value`,
		`spec.paramRef.name: Forbidden: name and selector are mutually exclusive`,
		`spec.paramRef.parameterNotFoundAction: Required value`,
		`spec.validationActions[2]: Unsupported value: "Shout": supported values: "Audit", "Deny", "Warn"`,
		`spec.validationActions: Invalid value: [Deny Warn Shout]: must not contain both Deny and Warn`} {
		assert.Contains(t, errOut, want)
	}
	_, errOut, err = kubectl(t, c.dev, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: sneaky}
spec: {policyName: max-replicas, validationActions: [Audit]}
`, "apply", "-f", "-")
	require.Error(t, err)
	assert.Contains(t, errOut, `User "dev" cannot`)
}
