package protobuf

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowControlBodies: the FlowSchema, PriorityLevelConfiguration and
// StorageVersionMigration bodies client-go sends (the conformance suite's
// templates, as gogo writes them: every non-pointer scalar present)
// convert to the JSON Kubernetes writes for the same objects.
func TestFlowControlBodies(t *testing.T) {
	om := objectMetaPB("n")
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{
			name: "flow schema",
			body: wrap("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", pbMsg{}.msg(1, om).msg(2, pbMsg{}.
				msg(1, pbMsg{}.str(1, "global-default")).varint(2, 10000).msg(3, pbMsg{}.str(1, "ByUser")).
				msg(4, pbMsg{}.
					msg(1, pbMsg{}.str(1, "User").msg(2, pbMsg{}.str(1, "someone"))).
					msg(2, pbMsg{}.str(1, "get").str(2, "").str(3, "pods").varint(4, 0).str(5, "*")).
					msg(3, pbMsg{}.str(1, "*").str(6, "/healthz")))).
				msg(3, pbMsg{}.msg(1, pbMsg{}.str(1, "Dangling").str(2, "False").msg(3, pbMsg{}.varint(1, 1704164645)).str(4, "Found").str(5, "")))),
			want: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"n","creationTimestamp":null},
				"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":10000,"distinguisherMethod":{"type":"ByUser"},
				"rules":[{"subjects":[{"kind":"User","user":{"name":"someone"}}],
				"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"namespaces":["*"]}],
				"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["/healthz"]}]}]},
				"status":{"conditions":[{"type":"Dangling","status":"False","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"Found"}]}}`,
		},
		{
			name: "priority level, zero shares kept",
			body: wrap("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", pbMsg{}.msg(1, om).msg(2, pbMsg{}.
				str(1, "Limited").msg(2, pbMsg{}.varint(1, 0).msg(2, pbMsg{}.str(1, "Queue").msg(2, pbMsg{}.varint(1, 64).varint(2, 8).varint(3, 50))))).
				msg(3, nil)),
			want: `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"n","creationTimestamp":null},
				"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":0,"limitResponse":{"type":"Queue","queuing":{"queues":64,"handSize":8,"queueLengthLimit":50}}}},
				"status":{}}`,
		},
		{
			name: "storage version migration",
			body: wrap("storagemigration.k8s.io/v1", "StorageVersionMigration", pbMsg{}.msg(1, om).
				msg(2, pbMsg{}.msg(1, pbMsg{}.str(1, "").str(2, "foo"))).msg(3, pbMsg{}.str(2, ""))),
			want: `{"apiVersion":"storagemigration.k8s.io/v1","kind":"StorageVersionMigration","metadata":{"name":"n","creationTimestamp":null},
				"spec":{"resource":{"group":"","resource":"foo"}},"status":{}}`,
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
