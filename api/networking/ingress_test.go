package networking

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
)

func roundTrip[T any](t *testing.T, file string, validate func(*T) field.ErrorList) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	var v T
	require.NoError(t, json.Unmarshal(data, &v))
	assert.Empty(t, validate(&v))
	out, err := json.Marshal(&v)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(out))
}

func TestGolden(t *testing.T) {
	roundTrip(t, "ingress.json", ValidateIngress)
	roundTrip(t, "ingressclass.json", ValidateIngressClass)
}

func ptr[T any](v T) *T { return &v }

func TestValidateIngress(t *testing.T) {
	svc := func(name string, port ServiceBackendPort) IngressBackend {
		return IngressBackend{Service: &IngressServiceBackend{Name: name, Port: port}}
	}
	rule := func(host string, paths ...HTTPIngressPath) IngressRule {
		return IngressRule{Host: host, IngressRuleValue: IngressRuleValue{HTTP: &HTTPIngressRuleValue{Paths: paths}}}
	}
	path := func(p string, pt PathType, b IngressBackend) HTTPIngressPath {
		return HTTPIngressPath{Path: p, PathType: &pt, Backend: b}
	}
	ok := svc("web", ServiceBackendPort{Number: 80})
	tests := []struct {
		name string
		spec IngressSpec
		want []string
	}{
		{"default backend only", IngressSpec{DefaultBackend: &ok}, nil},
		{"rules", IngressSpec{Rules: []IngressRule{rule("*.example.com", path("/", PathTypePrefix, ok))}}, nil},
		{"nothing", IngressSpec{}, []string{"spec: Invalid value: \"null\": either `defaultBackend` or `rules` must be specified"}},
		{"IP host", IngressSpec{Rules: []IngressRule{rule("10.0.0.1", path("/", PathTypePrefix, ok))}},
			[]string{`spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`}},
		{"bad host", IngressSpec{Rules: []IngressRule{rule("Web_1", path("/", PathTypePrefix, ok))}}, []string{`spec.rules[0].host: Invalid value: "Web_1"`}},
		{"no paths", IngressSpec{Rules: []IngressRule{rule("a.com")}}, []string{"spec.rules[0].http.paths: Required value"}},
		{"no path type", IngressSpec{Rules: []IngressRule{rule("a.com", HTTPIngressPath{Path: "/", Backend: ok})}},
			[]string{"spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"}},
		{"relative path", IngressSpec{Rules: []IngressRule{rule("a.com", path("api", PathTypePrefix, ok))}},
			[]string{`spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path`}},
		{"double slash", IngressSpec{Rules: []IngressRule{rule("a.com", path("/a//b", PathTypeExact, ok))}},
			[]string{`spec.rules[0].http.paths[0].path: Invalid value: "/a//b": must not contain '//'`}},
		{"unknown path type", IngressSpec{Rules: []IngressRule{rule("a.com", path("/", "Regex", ok))}},
			[]string{`spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex"`}},
		{"both port name and number", IngressSpec{DefaultBackend: ptr(svc("web", ServiceBackendPort{Name: "http", Number: 80}))},
			[]string{"spec.defaultBackend.service.port: Invalid value"}},
		{"no port", IngressSpec{DefaultBackend: ptr(svc("web", ServiceBackendPort{}))},
			[]string{"spec.defaultBackend.service.port: Required value: port name or number is required"}},
		{"bad service name", IngressSpec{DefaultBackend: ptr(svc("1web", ServiceBackendPort{Number: 80}))},
			[]string{`spec.defaultBackend.service.name: Invalid value: "1web"`}},
		{"port out of range", IngressSpec{DefaultBackend: ptr(svc("web", ServiceBackendPort{Number: 70000}))},
			[]string{"spec.defaultBackend.service.port.number: Invalid value: 70000"}},
		{"no backend", IngressSpec{DefaultBackend: &IngressBackend{}},
			[]string{`spec.defaultBackend: Invalid value: "": resource or service backend is required`}},
		{"bad TLS host", IngressSpec{DefaultBackend: &ok, TLS: []IngressTLS{{Hosts: []string{"*.*.a.com"}}}},
			[]string{`spec.tls[0].hosts[0]: Invalid value: "*.*.a.com": a wildcard DNS-1123 subdomain`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ing := &Ingress{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"}, Spec: tt.spec}
			errs := ValidateIngress(ing)
			require.Len(t, errs, len(tt.want), "%v", errs)
			for i, w := range tt.want {
				assert.True(t, strings.HasPrefix(errs[i].Error(), w), "%q does not start with %q", errs[i].Error(), w)
			}
		})
	}
}

func TestValidateIngressClass(t *testing.T) {
	ns := "ingress"
	tests := []struct {
		name string
		spec IngressClassSpec
		want []string
	}{
		{"controller only", IngressClassSpec{Controller: "k8s.io/ingress-nginx"}, nil},
		{"no controller", IngressClassSpec{}, []string{"spec.controller: Required value"}},
		{"not domain prefixed", IngressClassSpec{Controller: "nginx"},
			[]string{`spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")`}},
		{"too long", IngressClassSpec{Controller: "a.io/" + strings.Repeat("x", 250)}, []string{"spec.controller: Too long"}},
		{"cluster scope with namespace", IngressClassSpec{Controller: "a.io/b",
			Parameters: &IngressClassParametersReference{Kind: "K", Name: "n", Scope: ptr("Cluster"), Namespace: &ns}},
			[]string{"spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"}},
		{"namespace scope without namespace", IngressClassSpec{Controller: "a.io/b",
			Parameters: &IngressClassParametersReference{Kind: "K", Name: "n", Scope: ptr("Namespace")}},
			[]string{"spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"}},
		{"parameters without kind and name", IngressClassSpec{Controller: "a.io/b",
			Parameters: &IngressClassParametersReference{Scope: ptr("Cluster")}},
			[]string{"spec.parameters.kind: Required value", "spec.parameters.name: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateIngressClass(&IngressClass{ObjectMeta: meta.ObjectMeta{Name: "nginx"}, Spec: tt.spec})
			require.Len(t, errs, len(tt.want), "%v", errs)
			for i, w := range tt.want {
				assert.True(t, strings.HasPrefix(errs[i].Error(), w), "%q does not start with %q", errs[i].Error(), w)
			}
		})
	}
	old := &IngressClass{ObjectMeta: meta.ObjectMeta{Name: "nginx"}, Spec: IngressClassSpec{Controller: "a.io/b"}}
	upd := &IngressClass{ObjectMeta: meta.ObjectMeta{Name: "nginx"}, Spec: IngressClassSpec{Controller: "a.io/c"}}
	assert.Contains(t, ValidateIngressClassUpdate(upd, old).ToAggregate().Error(), "spec.controller: Invalid value: \"a.io/c\": field is immutable")
	c := &IngressClass{Spec: IngressClassSpec{Parameters: &IngressClassParametersReference{}}}
	DefaultIngressClass(c)
	assert.Equal(t, "Cluster", *c.Spec.Parameters.Scope)
}

func FuzzValidateIngress(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "ingress.json"))
	require.NoError(f, err)
	f.Add(data)
	f.Fuzz(func(t *testing.T, b []byte) {
		var ing Ingress
		if json.Unmarshal(b, &ing) != nil {
			return
		}
		_ = ValidateIngress(&ing)
		_ = ValidateIngressUpdate(&ing, &ing)
	})
}
