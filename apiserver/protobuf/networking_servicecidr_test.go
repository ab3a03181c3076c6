package protobuf

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceCIDRBodies: the ServiceCIDR and IPAddress bodies client-go
// sends (the conformance spec's objects, as gogo writes them: every
// non-pointer string present) convert to the JSON Kubernetes writes.
func TestServiceCIDRBodies(t *testing.T) {
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{
			name: "service CIDR with a Ready condition",
			body: wrap("networking.k8s.io/v1", "ServiceCIDR", pbMsg{}.msg(1, objectMetaPB("kubernetes")).
				msg(2, pbMsg{}.str(1, "10.96.0.0/12").str(1, "fd00::/112")).
				msg(3, pbMsg{}.msg(1, pbMsg{}.str(1, "Ready").str(2, "True").varint(3, 0).msg(4, pbMsg{}.varint(1, 1704164645)).
					str(5, "").str(6, "Kubernetes default Service CIDR is ready")))),
			want: `{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"kubernetes","creationTimestamp":null},
				"spec":{"cidrs":["10.96.0.0/12","fd00::/112"]},
				"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"","message":"Kubernetes default Service CIDR is ready"}]}}`,
		},
		{
			name: "service CIDR, empty",
			body: wrap("networking.k8s.io/v1", "ServiceCIDR", pbMsg{}.msg(1, objectMetaPB("x")).msg(2, nil).msg(3, nil)),
			want: `{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"x","creationTimestamp":null},"spec":{},"status":{}}`,
		},
		{
			name: "IPv6 address with a core-group parent",
			body: wrap("networking.k8s.io/v1", "IPAddress", pbMsg{}.msg(1, objectMetaPB("fe80::42:1dff:fe84:f9e2")).
				msg(2, pbMsg{}.msg(1, pbMsg{}.str(1, "").str(2, "services").str(3, "default").str(4, "web")))),
			want: `{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"name":"fe80::42:1dff:fe84:f9e2","creationTimestamp":null},
				"spec":{"parentRef":{"resource":"services","namespace":"default","name":"web"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := ToJSON(tt.body)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(out))
		})
	}
}

// TestServiceCIDRRoundTrip: what the API server stores (JSON) encodes to
// protobuf for a typed client and decodes back the same; lists encode.
func TestServiceCIDRRoundTrip(t *testing.T) {
	for _, doc := range []string{
		`{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"kubernetes","uid":"u","resourceVersion":"5","creationTimestamp":"2024-01-02T03:04:05Z"},
			"spec":{"cidrs":["10.96.0.0/12"]},"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"","message":"Kubernetes default Service CIDR is ready"}]}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress","metadata":{"name":"255.255.255.255","labels":{"type":"broadcast"},"creationTimestamp":null},
			"spec":{"parentRef":{"group":"mygroup","resource":"myresources","namespace":"foo","name":"bar"}}}`,
	} {
		pb, err := FromJSON([]byte(doc))
		require.NoError(t, err)
		out, _, err := ToJSON(pb)
		require.NoError(t, err)
		assert.JSONEq(t, doc, string(out))
	}
	for _, list := range []string{"ServiceCIDRList", "IPAddressList"} {
		_, err := FromJSON([]byte(`{"apiVersion":"networking.k8s.io/v1","kind":"` + list + `","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"x"}}]}`))
		assert.NoError(t, err, list)
	}
}
