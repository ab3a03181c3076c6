package protobuf

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCSIKindBodies: the CSIDriver, VolumeAttachment,
// VolumeAttributesClass and CSIStorageCapacity bodies client-go sends (the
// conformance specs' objects, as gogo writes them: every non-pointer
// field present) convert to the JSON Kubernetes writes.
func TestCSIKindBodies(t *testing.T) {
	const sv = "storage.k8s.io/v1"
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{
			name: "CSI driver with ephemeral mode and a token request",
			body: wrap(sv, "CSIDriver", pbMsg{}.msg(1, objectMetaPB("inline-driver")).
				msg(2, pbMsg{}.str(3, "Ephemeral").str(5, "ReadWriteOnceWithFSType").msg(6, pbMsg{}.str(1, "")).varint(7, 0))),
			want: `{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"inline-driver","creationTimestamp":null},
				"spec":{"volumeLifecycleModes":["Ephemeral"],"fsGroupPolicy":"ReadWriteOnceWithFSType","tokenRequests":[{"audience":""}],"requiresRepublish":false}}`,
		},
		{
			name: "volume attachment of a PersistentVolume, not attached",
			body: wrap(sv, "VolumeAttachment", pbMsg{}.msg(1, objectMetaPB("va-e2e")).
				msg(2, pbMsg{}.str(1, "e2e-test.storage.k8s.io").msg(2, pbMsg{}.str(1, "pv-e2e")).str(3, "sim-node-0")).
				msg(3, pbMsg{}.varint(1, 0))),
			want: `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"va-e2e","creationTimestamp":null},
				"spec":{"attacher":"e2e-test.storage.k8s.io","source":{"persistentVolumeName":"pv-e2e"},"nodeName":"sim-node-0"},
				"status":{"attached":false}}`,
		},
		{
			name: "volume attachment status with metadata and an error",
			body: wrap(sv, "VolumeAttachment", pbMsg{}.msg(1, objectMetaPB("va")).
				msg(2, pbMsg{}.str(1, "d").msg(2, nil).str(3, "n")).
				msg(3, pbMsg{}.varint(1, 1).entry(2, "k", "v").msg(3, pbMsg{}.msg(1, pbMsg{}.varint(1, 1704164645)).str(2, "boom").varint(3, 13)))),
			want: `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"va","creationTimestamp":null},
				"spec":{"attacher":"d","source":{},"nodeName":"n"},
				"status":{"attached":true,"attachmentMetadata":{"k":"v"},"attachError":{"time":"2024-01-02T03:04:05Z","message":"boom","errorCode":13}}}`,
		},
		{
			name: "volume attributes class",
			body: wrap(sv, "VolumeAttributesClass", pbMsg{}.msg(1, objectMetaPB("e2e-x")).str(2, "e2e-fake-csi-driver").entry(3, "foo", "bar")),
			want: `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttributesClass","metadata":{"name":"e2e-x","creationTimestamp":null},
				"driverName":"e2e-fake-csi-driver","parameters":{"foo":"bar"}}`,
		},
		{
			name: "storage capacity",
			body: wrap(sv, "CSIStorageCapacity", pbMsg{}.msg(1, objectMetaPB("c")).
				msg(2, pbMsg{}.entry(1, "topology.example.com/zone", "a")).str(3, "fast").msg(4, pbMsg{}.str(1, "10Gi"))),
			want: `{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"c","creationTimestamp":null},
				"nodeTopology":{"matchLabels":{"topology.example.com/zone":"a"}},"storageClassName":"fast","capacity":"10Gi"}`,
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

// TestCSIKindRoundTrip: what the API server stores (JSON) encodes to
// protobuf for a typed client and decodes back the same; lists encode.
func TestCSIKindRoundTrip(t *testing.T) {
	for _, doc := range []string{
		`{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"d","creationTimestamp":null},
			"spec":{"attachRequired":true,"podInfoOnMount":false,"volumeLifecycleModes":["Persistent","Ephemeral"],"storageCapacity":false,
			"fsGroupPolicy":"File","tokenRequests":[{"audience":"vault","expirationSeconds":600}],"requiresRepublish":false,"seLinuxMount":false,
			"nodeAllocatableUpdatePeriodSeconds":60,"serviceAccountTokenInSecrets":true,"preventPodSchedulingIfMissing":false}}`,
		`{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"va","creationTimestamp":null},
			"spec":{"attacher":"d","source":{"inlineVolumeSpec":{"csi":{"driver":"d","volumeHandle":"h"},"accessModes":["ReadWriteOnce"]}},"nodeName":"n"},
			"status":{"attached":true,"detachError":{"message":"busy","errorCode":0}}}`,
		`{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttributesClass","metadata":{"name":"gold","creationTimestamp":null},"driverName":"d","parameters":{"iops":"3000"}}`,
		`{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"c","namespace":"ns","creationTimestamp":null},
			"storageClassName":"fast","maximumVolumeSize":"1Gi"}`,
	} {
		pb, err := FromJSON([]byte(doc))
		require.NoError(t, err)
		out, _, err := ToJSON(pb)
		require.NoError(t, err)
		assert.JSONEq(t, doc, string(out))
	}
	for _, list := range []string{"CSIDriverList", "VolumeAttachmentList", "VolumeAttributesClassList", "CSIStorageCapacityList"} {
		_, err := FromJSON([]byte(`{"apiVersion":"storage.k8s.io/v1","kind":"` + list + `","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"x"}}]}`))
		assert.NoError(t, err, list)
	}
}
