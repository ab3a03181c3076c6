package apiregistration

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
)

func valid() *APIService {
	p := int32(443)
	return &APIService{ObjectMeta: meta.ObjectMeta{Name: "v1beta1.metrics.k8s.io"}, Spec: APIServiceSpec{
		Service: &ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: &p},
		Group:   "metrics.k8s.io", Version: "v1beta1", CABundle: []byte("pem"), GroupPriorityMinimum: 100, VersionPriority: 100}}
}

func TestValidateAPIService(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(a *APIService)
		want   []string
	}{
		{"ok", func(*APIService) {}, nil},
		{"local", func(a *APIService) { a.Spec.Service, a.Spec.CABundle = nil, nil }, nil},
		{"name mismatch", func(a *APIService) { a.Name = "v1.metrics.k8s.io" }, []string{
			`metadata.name: Invalid value: "v1.metrics.k8s.io": must be v1beta1.metrics.k8s.io`}},
		{"priorities", func(a *APIService) { a.Spec.GroupPriorityMinimum, a.Spec.VersionPriority = 0, 1001 }, []string{
			"spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
			"spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"}},
		{"conflicting trust", func(a *APIService) { a.Spec.InsecureSkipTLSVerify = true }, []string{
			"spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"}},
		{"service", func(a *APIService) { a.Spec.Service = &ServiceReference{Port: new(int32)} }, []string{
			"spec.service.namespace: Required value", "spec.service.name: Required value",
			"spec.service.port: Invalid value: 0: must be between 1 and 65535, inclusive"}},
		{"local with trust", func(a *APIService) { a.Spec.Service = nil }, []string{
			`spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := valid()
			tt.mutate(a)
			var got []string
			for _, e := range ValidateAPIService(a) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSetAvailable(t *testing.T) {
	a := valid()
	t0 := meta.Now()
	assert.True(t, a.SetAvailable(meta.ConditionFalse, "MissingEndpoints", "x", t0))
	assert.False(t, a.SetAvailable(meta.ConditionFalse, "MissingEndpoints", "x", t0))
	assert.True(t, a.SetAvailable(meta.ConditionTrue, "Passed", "all checks passed", t0))
	assert.Equal(t, meta.ConditionTrue, a.Available().Status)
	DefaultAPIService(&APIService{Spec: APIServiceSpec{Service: &ServiceReference{}}})
	b := &APIService{Spec: APIServiceSpec{Service: &ServiceReference{}}}
	DefaultAPIService(b)
	assert.Equal(t, int32(443), *b.Spec.Service.Port)
}
