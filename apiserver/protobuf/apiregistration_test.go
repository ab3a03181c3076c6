package protobuf

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPIServiceBodies: the APIService bodies kube-aggregator's clientset
// sends (the Aggregator conformance spec's, as gogo writes them: every
// non-pointer scalar present) convert to the JSON Kubernetes writes, and
// that JSON converts back to protobuf and again to the same JSON.
func TestAPIServiceBodies(t *testing.T) {
	om := objectMetaPB("v1alpha1.wardle.example.com")
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{
			name: "service, CA bundle and priorities",
			body: wrap("apiregistration.k8s.io/v1", "APIService", pbMsg{}.msg(1, om).msg(2, pbMsg{}.
				msg(1, pbMsg{}.str(1, "aggregator-1").str(2, "sample-api").varint(3, 7443)).
				str(2, "wardle.example.com").str(3, "v1alpha1").varint(4, 0).bytes(5, []byte("PEM")).
				varint(7, 2000).varint(8, 200)).
				msg(3, nil)),
			want: `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1alpha1.wardle.example.com","creationTimestamp":null},
				"spec":{"service":{"namespace":"aggregator-1","name":"sample-api","port":7443},"group":"wardle.example.com","version":"v1alpha1",
				"caBundle":"UEVN","groupPriorityMinimum":2000,"versionPriority":200},"status":{}}`,
		},
		{
			name: "local, zero priorities kept, conditions",
			body: wrap("apiregistration.k8s.io/v1", "APIService", pbMsg{}.msg(1, om).msg(2, pbMsg{}.
				str(2, "wardle.example.com").str(3, "v1alpha1").varint(4, 1).varint(7, 0).varint(8, 0)).
				msg(3, pbMsg{}.msg(1, pbMsg{}.str(1, "Available").str(2, "True").msg(3, pbMsg{}.varint(1, 1704164645)).
					str(4, "Passed").str(5, "all checks passed")).
					msg(1, pbMsg{}.str(1, "StatusUpdated").str(2, "True").str(4, "E2E").str(5, "Set from e2e test")))),
			want: `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1alpha1.wardle.example.com","creationTimestamp":null},
				"spec":{"group":"wardle.example.com","version":"v1alpha1","insecureSkipTLSVerify":true,"groupPriorityMinimum":0,"versionPriority":0},
				"status":{"conditions":[{"type":"Available","status":"True","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"Passed","message":"all checks passed"},
				{"type":"StatusUpdated","status":"True","reason":"E2E","message":"Set from e2e test"}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := ToJSON(tt.body)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(out))
			pb, err := FromJSON(out)
			require.NoError(t, err)
			again, _, err := ToJSON(pb)
			require.NoError(t, err)
			assert.JSONEq(t, string(out), string(again))
		})
	}
}
