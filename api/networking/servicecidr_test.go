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

func TestGoldenServiceCIDR(t *testing.T) {
	roundTrip(t, "servicecidr.json", ValidateServiceCIDR)
	roundTrip(t, "ipaddress.json", ValidateIPAddress)
}

// assertErrs checks that errs are want, each error starting with its
// string.
func assertErrs(t *testing.T, want []string, errs field.ErrorList) {
	t.Helper()
	require.Len(t, errs, len(want), "%v", errs)
	for i, w := range want {
		assert.True(t, strings.HasPrefix(errs[i].Error(), w), "%q does not start with %q", errs[i].Error(), w)
	}
}

func TestValidateServiceCIDR(t *testing.T) {
	tests := []struct {
		name      string
		objName   string
		cidrs     []string
		want      []string
		wantMatch string
	}{
		{name: "IPv4", cidrs: []string{"10.96.0.0/12"}},
		{name: "IPv6", cidrs: []string{"fd00:10:96::/112"}},
		{name: "dual stack", cidrs: []string{"fd00:10:96::/112", "10.96.0.0/12"}},
		{name: "no CIDRs", want: []string{"spec.cidrs: Required value: at least one CIDR required"}},
		{name: "three CIDRs", cidrs: []string{"10.96.0.0/12", "fd00::/112", "10.0.0.0/24"},
			want: []string{"spec.cidrs: Invalid value"}, wantMatch: "may only hold up to 2 values"},
		{name: "same family twice", cidrs: []string{"10.96.0.0/12", "10.0.0.0/24"},
			want: []string{"spec.cidrs: Invalid value"}, wantMatch: "may specify no more than one IP for each IP family"},
		{name: "not a CIDR", cidrs: []string{"10.96.0.1"},
			want: []string{`spec.cidrs[0]: Invalid value: "10.96.0.1": must be a valid CIDR value`}},
		{name: "garbage", cidrs: []string{"10.96.0.0/12", "\x00\xff/64"},
			want: []string{`spec.cidrs[1]: Invalid value`}, wantMatch: "must be a valid CIDR value"},
		{name: "host bits set", cidrs: []string{"10.96.0.1/12"},
			want: []string{`spec.cidrs[0]: Invalid value: "10.96.0.1/12": must not have bits set beyond the prefix length`}},
		{name: "leading zeros", cidrs: []string{"010.96.0.0/12"},
			want: []string{`spec.cidrs[0]: Invalid value: "010.96.0.0/12": must not have leading 0s in IP or prefix length`}},
		{name: "not canonical", cidrs: []string{"FD00:10:96::/112"},
			want: []string{`spec.cidrs[0]: Invalid value: "FD00:10:96::/112": must be in canonical form ("fd00:10:96::/112")`}},
		{name: "bad second and same family", cidrs: []string{"10.96.0.0/12", "10.0.0.1/24"},
			want: []string{`spec.cidrs[1]: Invalid value: "10.0.0.1/24": must not have bits set`, "spec.cidrs: Invalid value"}},
		{name: "leading zeros and same family", cidrs: []string{"10.96.0.0/12", "010.0.0.0/24"},
			want: []string{`spec.cidrs[1]: Invalid value: "010.0.0.0/24": must not have leading 0s`, "spec.cidrs: Invalid value"}},
		{name: "garbage twice", cidrs: []string{"a/1", "b/2"},
			want: []string{`spec.cidrs[0]: Invalid value: "a/1"`, `spec.cidrs[1]: Invalid value: "b/2"`}},
		{name: "bad name", objName: "Default_CIDR", cidrs: []string{"10.96.0.0/12"},
			want: []string{`metadata.name: Invalid value: "Default_CIDR"`}},
		{name: "oversized name", objName: strings.Repeat("a", 254), cidrs: []string{"10.96.0.0/12"},
			want: []string{`metadata.name: Invalid value`}, wantMatch: "must be no more than 253 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.objName
			if name == "" {
				name = "kubernetes"
			}
			errs := ValidateServiceCIDR(&ServiceCIDR{ObjectMeta: meta.ObjectMeta{Name: name}, Spec: ServiceCIDRSpec{CIDRs: tt.cidrs}})
			assertErrs(t, tt.want, errs)
			if tt.wantMatch != "" {
				assert.Contains(t, errs.ToAggregate().Error(), tt.wantMatch)
			}
		})
	}
}

func TestValidateServiceCIDRUpdate(t *testing.T) {
	tests := []struct {
		name     string
		old, cur []string
		want     []string
	}{
		{"unchanged", []string{"10.96.0.0/12"}, []string{"10.96.0.0/12"}, nil},
		{"to dual stack", []string{"10.96.0.0/12"}, []string{"10.96.0.0/12", "fd00::/112"}, nil},
		{"changed", []string{"10.96.0.0/12"}, []string{"10.0.0.0/12"},
			[]string{`spec.cidrs[0]: Invalid value: "10.0.0.0/12": field is immutable`}},
		{"second changed", []string{"10.96.0.0/12", "fd00::/112"}, []string{"10.96.0.0/12", "fd01::/112"},
			[]string{`spec.cidrs[1]: Invalid value: "fd01::/112": field is immutable`}},
		{"to dual stack changing the first", []string{"10.96.0.0/12"}, []string{"10.0.0.0/12", "fd00::/112"},
			[]string{`spec.cidrs[0]: Invalid value: "10.0.0.0/12": field is immutable`}},
		{"to dual stack with the same family", []string{"10.96.0.0/12"}, []string{"10.96.0.0/12", "10.0.0.0/24"},
			[]string{`spec.cidrs: Invalid value`}},
		{"to dual stack with a bad CIDR", []string{"10.96.0.0/12"}, []string{"10.96.0.0/12", "fd00::1/112"},
			[]string{`spec.cidrs[1]: Invalid value: "fd00::1/112": must not have bits set`}},
		{"from dual stack", []string{"10.96.0.0/12", "fd00::/112"}, []string{"10.96.0.0/12"},
			[]string{`spec.cidrs: Invalid value`}},
		{"emptied", []string{"10.96.0.0/12"}, nil, []string{`spec.cidrs: Invalid value`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := meta.ObjectMeta{Name: "c", ResourceVersion: "1"}
			old := &ServiceCIDR{ObjectMeta: m, Spec: ServiceCIDRSpec{CIDRs: tt.old}}
			cur := &ServiceCIDR{ObjectMeta: m, Spec: ServiceCIDRSpec{CIDRs: tt.cur}}
			assertErrs(t, tt.want, ValidateServiceCIDRUpdate(cur, old))
		})
	}
	t.Run("status is not checked", func(t *testing.T) {
		m := meta.ObjectMeta{Name: "c", ResourceVersion: "1"}
		old := &ServiceCIDR{ObjectMeta: m, Spec: ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/12"}}}
		cur := meta.DeepCopy(old)
		cur.Status.Conditions = []meta.Condition{{Type: ServiceCIDRConditionReady, Status: meta.ConditionTrue,
			Message: "Kubernetes default Service CIDR is ready"}}
		assert.Empty(t, ValidateServiceCIDRUpdate(cur, old))
	})
}

func TestValidateIPAddress(t *testing.T) {
	ref := func() *ParentReference {
		return &ParentReference{Group: "mygroup", Resource: "myresources", Namespace: "foo", Name: "bar"}
	}
	tests := []struct {
		name string
		ip   string
		ref  *ParentReference
		edit func(*ParentReference)
		want []string
	}{
		{name: "IPv4 broadcast", ip: "255.255.255.255", ref: ref()},
		{name: "IPv6 link-local", ip: "fe80::42:1dff:fe84:f9e2", ref: ref()},
		{name: "core group, cluster-scoped parent", ip: "10.96.0.1", ref: &ParentReference{Resource: "services", Name: "kubernetes"}},
		{name: "no parent", ip: "10.96.0.1", want: []string{"spec.parentRef: Required value"}},
		{name: "empty parent", ip: "10.96.0.1", ref: &ParentReference{},
			want: []string{"spec.parentRef.resource: Required value", "spec.parentRef.name: Required value"}},
		{name: "bad group", ip: "10.96.0.1", ref: ref(), edit: func(r *ParentReference) { r.Group = "My_Group" },
			want: []string{`spec.parentRef.group: Invalid value: "My_Group"`}},
		{name: "oversized group", ip: "10.96.0.1", ref: ref(), edit: func(r *ParentReference) { r.Group = strings.Repeat("g", 254) },
			want: []string{"spec.parentRef.group: Invalid value"}},
		{name: "resource with a slash", ip: "10.96.0.1", ref: ref(), edit: func(r *ParentReference) { r.Resource = "a/b" },
			want: []string{`spec.parentRef.resource: Invalid value: "a/b": may not contain '/'`}},
		{name: "name dot dot", ip: "10.96.0.1", ref: ref(), edit: func(r *ParentReference) { r.Name = ".." },
			want: []string{`spec.parentRef.name: Invalid value: "..": may not be '..'`}},
		{name: "namespace with percent", ip: "10.96.0.1", ref: ref(), edit: func(r *ParentReference) { r.Namespace = "a%2F" },
			want: []string{`spec.parentRef.namespace: Invalid value: "a%2F": may not contain '%'`}},
		{name: "not canonical IPv6", ip: "FE80::1", ref: ref(),
			want: []string{`metadata.name: Invalid value: "FE80::1": must be in canonical form ("fe80::1")`}},
		{name: "IPv6 not compressed", ip: "2001:db8:0:0:0:0:0:1", ref: ref(),
			want: []string{`metadata.name: Invalid value: "2001:db8:0:0:0:0:0:1": must be in canonical form ("2001:db8::1")`}},
		{name: "leading zeros", ip: "010.0.0.1", ref: ref(),
			want: []string{`metadata.name: Invalid value: "010.0.0.1": must not have leading 0s`}},
		{name: "IPv4-mapped IPv6", ip: "::ffff:10.0.0.1", ref: ref(),
			want: []string{`metadata.name: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address`}},
		{name: "CIDR", ip: "10.0.0.0/24", ref: ref(), want: []string{`metadata.name: Invalid value: "10.0.0.0/24": must be a valid IP address`}},
		{name: "DNS name", ip: "example.com", ref: ref(), want: []string{`metadata.name: Invalid value: "example.com": must be a valid IP address`}},
		{name: "zone", ip: "fe80::1%eth0", ref: ref(), want: []string{`metadata.name: Invalid value: "fe80::1%eth0": must be a valid IP address`}},
		{name: "no name", ref: ref(), want: []string{"metadata.name: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.edit != nil {
				tt.edit(tt.ref)
			}
			errs := ValidateIPAddress(&IPAddress{ObjectMeta: meta.ObjectMeta{Name: tt.ip}, Spec: IPAddressSpec{ParentRef: tt.ref}})
			assertErrs(t, tt.want, errs)
		})
	}
}

func TestValidateIPAddressUpdate(t *testing.T) {
	old := &IPAddress{ObjectMeta: meta.ObjectMeta{Name: "10.96.0.10", ResourceVersion: "1"},
		Spec: IPAddressSpec{ParentRef: &ParentReference{Resource: "services", Namespace: "kube-system", Name: "kube-dns"}}}
	tests := []struct {
		name string
		edit func(*IPAddress)
		want []string
	}{
		{"annotation", func(ip *IPAddress) { ip.Annotations = map[string]string{"updated": "true"} }, nil},
		{"parent changed", func(ip *IPAddress) { ip.Spec.ParentRef.Name = "dns" }, []string{"spec.parentRef: Invalid value"}},
		{"parent removed", func(ip *IPAddress) { ip.Spec.ParentRef = nil },
			[]string{"spec.parentRef: Required value", "spec.parentRef: Invalid value"}},
		{"renamed", func(ip *IPAddress) { ip.Name = "10.96.0.11" }, []string{"metadata.name: Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := meta.DeepCopy(old)
			tt.edit(cur)
			errs := ValidateIPAddressUpdate(cur, old)
			assertErrs(t, tt.want, errs)
			if len(tt.want) > 0 && tt.name != "renamed" {
				assert.Contains(t, errs.ToAggregate().Error(), "field is immutable")
			}
		})
	}
}

func FuzzValidateServiceCIDR(f *testing.F) {
	for _, file := range []string{"servicecidr.json", "ipaddress.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c ServiceCIDR
		if json.Unmarshal(b, &c) == nil {
			_ = ValidateServiceCIDR(&c)
			_ = ValidateServiceCIDRUpdate(&c, &c)
		}
		var ip IPAddress
		if json.Unmarshal(b, &ip) == nil {
			_ = ValidateIPAddress(&ip)
			_ = ValidateIPAddressUpdate(&ip, &ip)
		}
	})
}
