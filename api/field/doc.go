// Package field describes validation failures by field path
// ("spec.containers[0].image: Required value"), the way Kubernetes reports
// them in an Invalid Status.
package field
