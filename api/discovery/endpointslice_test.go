package discovery

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func TestGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "endpointslice-web.json"))
	require.NoError(t, err)
	var s EndpointSlice
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Empty(t, ValidateEndpointSlice(&s))
	out, err := json.Marshal(&s)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(out))
	assert.True(t, s.Endpoints[0].IsReady())
	assert.False(t, s.Endpoints[1].IsReady())
}

func ptr[T any](v T) *T { return &v }

func valid() EndpointSlice {
	return EndpointSlice{
		ObjectMeta:  meta.ObjectMeta{Name: "web-x", Namespace: "default"},
		AddressType: AddressTypeIPv4,
		Endpoints:   []Endpoint{{Addresses: []string{"10.0.0.1"}}},
		Ports:       []EndpointPort{{Name: ptr("http"), Protocol: ptr(core.ProtocolTCP), Port: ptr(int32(80))}},
	}
}

func TestValidateEndpointSlice(t *testing.T) {
	tests := []struct {
		name   string
		change func(*EndpointSlice)
		want   []string
	}{
		{"valid", func(*EndpointSlice) {}, nil},
		{"no endpoints", func(s *EndpointSlice) { s.Endpoints = nil }, nil},
		{"all ports", func(s *EndpointSlice) { s.Ports = []EndpointPort{{Name: ptr(""), Protocol: ptr(core.ProtocolTCP)}} }, nil},
		{"ipv6", func(s *EndpointSlice) { s.AddressType, s.Endpoints[0].Addresses = AddressTypeIPv6, []string{"fd00::1"} }, nil},
		{"fqdn", func(s *EndpointSlice) {
			s.AddressType, s.Endpoints[0].Addresses = AddressTypeFQDN, []string{"db.example.com"}
		}, nil},
		{"no address type", func(s *EndpointSlice) { s.AddressType = "" }, []string{"addressType: Required value"}},
		{"bad address type", func(s *EndpointSlice) { s.AddressType = "IP" },
			[]string{`addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"`}},
		{"v6 in v4 slice", func(s *EndpointSlice) { s.Endpoints[0].Addresses = []string{"fd00::1"} },
			[]string{`endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address`}},
		{"garbage address", func(s *EndpointSlice) { s.Endpoints[0].Addresses = []string{"10.0.0"} },
			[]string{`endpoints[0].addresses[0]: Invalid value: "10.0.0": must be a valid IPv4 address`}},
		{"no addresses", func(s *EndpointSlice) { s.Endpoints[0].Addresses = nil },
			[]string{"endpoints[0].addresses: Required value: must contain at least 1 address"}},
		{"too many addresses", func(s *EndpointSlice) { s.Endpoints[0].Addresses = slices.Repeat([]string{"10.0.0.1"}, 101) },
			[]string{"endpoints[0].addresses: Too many: 101: must have at most 100 items"}},
		{"too many endpoints", func(s *EndpointSlice) { s.Endpoints = make([]Endpoint, 1001) },
			[]string{"endpoints: Too many: 1001: must have at most 1000 items"}},
		{"bad hostname", func(s *EndpointSlice) { s.Endpoints[0].Hostname = ptr("Web_1") }, []string{"endpoints[0].hostname: Invalid value"}},
		{"duplicate port names", func(s *EndpointSlice) { s.Ports = append(s.Ports, s.Ports[0]) },
			[]string{`ports[1].name: Duplicate value: "http"`}},
		{"bad protocol", func(s *EndpointSlice) { s.Ports[0].Protocol = ptr(core.Protocol("ICMP")) },
			[]string{`ports[0].protocol: Unsupported value: "ICMP"`}},
		{"bad port", func(s *EndpointSlice) { s.Ports[0].Port = ptr(int32(70000)) }, []string{"ports[0].port: Invalid value: 70000"}},
		{"too many ports", func(s *EndpointSlice) { s.Ports = make([]EndpointPort, 101) },
			[]string{"ports: Too many: 101: must have at most 100 items"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid()
			tt.change(&s)
			errs := ValidateEndpointSlice(&s)
			require.Len(t, errs, len(tt.want), "%v", errs)
			for i, w := range tt.want {
				assert.True(t, strings.HasPrefix(errs[i].Error(), w), "%q does not start with %q", errs[i].Error(), w)
			}
		})
	}
}

func TestAddressTypeImmutable(t *testing.T) {
	old, s := valid(), valid()
	s.AddressType, s.Endpoints[0].Addresses = AddressTypeIPv6, []string{"fd00::1"}
	errs := ValidateEndpointSliceUpdate(&s, &old)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "addressType: Invalid value: \"IPv6\": field is immutable")
}

func TestSetDefaults(t *testing.T) {
	s := EndpointSlice{Ports: []EndpointPort{{Port: ptr(int32(80))}}}
	SetDefaults(&s)
	assert.Equal(t, core.ProtocolTCP, *s.Ports[0].Protocol)
	assert.Equal(t, "", *s.Ports[0].Name)
}

func FuzzValidateEndpointSlice(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "endpointslice-web.json"))
	require.NoError(f, err)
	f.Add(data)
	f.Add([]byte(`{"addressType":"FQDN","endpoints":[{"addresses":["a."]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s EndpointSlice
		if json.Unmarshal(b, &s) != nil {
			return
		}
		SetDefaults(&s)
		_ = ValidateEndpointSlice(&s)
		_ = ValidateEndpointSliceUpdate(&s, &s)
	})
}
