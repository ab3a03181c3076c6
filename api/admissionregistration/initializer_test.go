package admissionregistration

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// As Kubernetes 1.9 documented it (docs/admin/extensible-admission-controllers).
const configDoc = `{
  "apiVersion": "admissionregistration.k8s.io/v1alpha1",
  "kind": "InitializerConfiguration",
  "metadata": {"name": "example-config", "resourceVersion": "12", "creationTimestamp": "2018-01-02T03:04:05Z"},
  "initializers": [
    {"name": "podimage.example.com",
     "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]}
  ]
}`

func TestJSON(t *testing.T) {
	var c InitializerConfiguration
	require.NoError(t, json.Unmarshal([]byte(configDoc), &c))
	out, err := json.Marshal(&c)
	require.NoError(t, err)
	assert.JSONEq(t, configDoc, string(out))
	assert.Empty(t, ValidateInitializerConfiguration(&c))
	assert.True(t, c.Initializers[0].Matches("", "v1", "pods"))
	assert.False(t, c.Initializers[0].Matches("apps", "v1", "deployments"))
}

func TestValidateFullyQualifiedName(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"podimage.example.com", nil},
		{"a.b.c.d", nil},
		{"", []string{"n: Required value"}},
		{"example.com", []string{`n: Invalid value: "example.com": should be a domain with at least three segments separated by dots`}},
		{"noDots", []string{`n: Invalid value: "noDots": `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateFullyQualifiedName(tt.name, field.NewPath("n")) {
				got = append(got, e.Error())
			}
			if tt.name == "noDots" {
				// The DNS-subdomain message comes from api/validation.
				require.Len(t, got, 1)
				assert.Contains(t, got[0], `n: Invalid value: "noDots"`)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateRules(t *testing.T) {
	cfg := func(r Rule) *InitializerConfiguration {
		return &InitializerConfiguration{ObjectMeta: meta.ObjectMeta{Name: "c"},
			Initializers: []Initializer{{Name: "a.b.c", Rules: []Rule{r}}}}
	}
	p := "initializers[0].rules[0]"
	tests := []struct {
		name string
		rule Rule
		want []string
	}{
		{"ok", Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}, nil},
		{"empty", Rule{}, []string{p + ".apiGroups: Required value", p + ".apiVersions: Required value", p + ".resources: Required value"}},
		{"wildcard groups mixed", Rule{APIGroups: []string{"*", "apps"}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			[]string{p + ".apiGroups: Invalid value: [* apps]: if '*' is present, must not specify other API groups"}},
		{"wildcard versions mixed", Rule{APIGroups: []string{""}, APIVersions: []string{"v1", "*"}, Resources: []string{"pods"}},
			[]string{p + ".apiVersions: Invalid value: [v1 *]: if '*' is present, must not specify other API versions"}},
		{"empty version", Rule{APIGroups: []string{""}, APIVersions: []string{""}, Resources: []string{"pods"}},
			[]string{p + ".apiVersions[0]: Required value"}},
		{"subresource", Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/status"}},
			[]string{p + `.resources[0]: Invalid value: "pods/status": must not specify subresources`}},
		{"wildcard resources mixed", Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "*", ""}},
			[]string{p + ".resources[2]: Required value", p + ".resources: Invalid value: [pods * ]: if '*' is present, must not specify other resources"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateInitializerConfiguration(cfg(tt.rule)) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValidateDuplicateNames(t *testing.T) {
	c := &InitializerConfiguration{ObjectMeta: meta.ObjectMeta{Name: "c"},
		Initializers: []Initializer{{Name: "a.b.c"}, {Name: "a.b.c"}}}
	errs := ValidateInitializerConfiguration(c)
	require.Len(t, errs, 1)
	assert.Equal(t, `initializers[1].name: Duplicate value: "a.b.c"`, errs[0].Error())
}

func TestRegister(t *testing.T) {
	s := scheme.New()
	Register(s)
	obj, typ, err := s.Decode([]byte(configDoc))
	require.NoError(t, err)
	assert.Equal(t, "initializerconfigurations", typ.Resource)
	assert.False(t, typ.Namespaced)
	assert.Empty(t, typ.Validate(obj))
	assert.Empty(t, typ.ValidateUpdate(obj, obj))
}

func ExampleInitializer_Matches() {
	in := Initializer{Name: "podimage.example.com",
		Rules: []Rule{{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}
	fmt.Println(in.Matches("", "v1", "pods"), in.Matches("", "v1", "services"))
	// Output: true false
}
