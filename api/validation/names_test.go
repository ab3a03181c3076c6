package validation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const (
	msgLabel = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	msgSub   = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	msg1035  = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	msgName  = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	msgValue = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

func TestIsDNS1123Label(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a", nil}, {"ab-c", nil}, {"0", nil}, {"a-1-b", nil}, {strings.Repeat("a", 63), nil},
		{"", []string{msgLabel}}, {"A", []string{msgLabel}}, {"-a", []string{msgLabel}}, {"a-", []string{msgLabel}},
		{"a_b", []string{msgLabel}}, {"a b", []string{msgLabel}}, {"é", []string{msgLabel}},
		{"a.b", []string{"must not contain dots"}},
		{strings.Repeat("a", 64), []string{"must be no more than 63 characters"}},
		{strings.Repeat("A", 64), []string{"must be no more than 63 characters", msgLabel}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsDNS1123Label(tt.in)) })
	}
}

func TestIsDNS1123Subdomain(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a", nil}, {"example.com", nil}, {"a-b.c-d.e", nil}, {"1.2.3.4", nil},
		{strings.Repeat("a", 253), nil}, {strings.Repeat("a", 100) + "." + strings.Repeat("b", 100), nil},
		{"", []string{msgSub}}, {".a", []string{msgSub}}, {"a.", []string{msgSub}}, {"a..b", []string{msgSub}},
		{"a.-b", []string{msgSub}}, {"Example.com", []string{msgSub}}, {"a_b.com", []string{msgSub}},
		{strings.Repeat("a", 254), []string{"must be no more than 253 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsDNS1123Subdomain(tt.in)) })
	}
}

func TestIsDNS1035Label(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a", nil}, {"my-svc", nil}, {"a1", nil},
		{"1a", []string{msg1035}}, {"", []string{msg1035}}, {"a-", []string{msg1035}}, {"a.b", []string{msg1035}},
		{"A", []string{msg1035}},
		{"a" + strings.Repeat("1", 63), []string{"must be no more than 63 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsDNS1035Label(tt.in)) })
	}
}

func TestIsQualifiedName(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"app", nil}, {"App.Name_1-x", nil}, {"example.com/MyName", nil}, {"k8s.io/app", nil}, {"1", nil},
		{strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63), nil},
		{"", []string{"name part must be non-empty", msgName}},
		{"-a", []string{msgName}}, {"a_", []string{msgName}}, {"a b", []string{msgName}},
		{"/a", []string{"prefix part must be non-empty"}},
		{"Example.com/a", []string{"prefix part " + msgSub}},
		{"example.com/", []string{"name part must be non-empty", msgName}},
		{strings.Repeat("a", 64), []string{"name part must be no more than 63 characters"}},
		{"a/b/c", []string{"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsQualifiedName(tt.in)) })
	}
}

func TestIsValidLabelValue(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil}, {"a", nil}, {"MyValue", nil}, {"my_value", nil}, {"1.2-3", nil}, {strings.Repeat("a", 63), nil},
		{"-a", []string{msgValue}}, {"a/b", []string{msgValue}}, {"a b", []string{msgValue}},
		{strings.Repeat("a", 64), []string{"must be no more than 63 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsValidLabelValue(tt.in)) })
	}
}

func TestNameFuncs(t *testing.T) {
	tests := []struct {
		name   string
		fn     NameFunc
		in     string
		prefix bool
		valid  bool
	}{
		{"subdomain", NameIsDNSSubdomain, "web.example", false, true},
		{"subdomain prefix dash", NameIsDNSSubdomain, "web-", true, true},
		{"subdomain name dash", NameIsDNSSubdomain, "web-", false, false},
		{"subdomain prefix lone dash", NameIsDNSSubdomain, "-", true, false},
		{"subdomain prefix dot dash", NameIsDNSSubdomain, "a.-", true, false},
		{"label", NameIsDNSLabel, "kube-system", false, true},
		{"label dots", NameIsDNSLabel, "a.b", false, false},
		{"label prefix", NameIsDNSLabel, "ns-", true, true},
		{"1035", NameIsDNS1035Label, "svc", false, true},
		{"1035 digit", NameIsDNS1035Label, "1svc", false, false},
		{"1035 prefix", NameIsDNS1035Label, "svc-", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.fn(tt.in, tt.prefix)
			assert.Equal(t, tt.valid, len(errs) == 0, "%v", errs)
		})
	}
}

func TestIsPathSegmentName(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"services", nil}, {"", nil}, {"a.b", nil}, {"...", nil},
		{".", []string{"may not be '.'"}}, {"..", []string{"may not be '..'"}},
		{"a/b", []string{"may not contain '/'"}}, {"a%2F", []string{"may not contain '%'"}},
		{"/%", []string{"may not contain '/'", "may not contain '%'"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) { assert.Equal(t, tt.want, IsPathSegmentName(tt.in)) })
	}
}
