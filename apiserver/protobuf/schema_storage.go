package protobuf

// storageMessages are storage/v1 generated.proto's StorageClass, CSINode,
// CSIDriver, VolumeAttachment, VolumeAttributesClass and
// CSIStorageCapacity messages (and core/v1's TopologySelectorTerm); the JSON names are the Go json
// tags of api/storage and api/core.
func storageMessages() map[string]fields {
	return map[string]fields{
		"storage.StorageClass": {
			1: objectMeta(), 2: strp("provisioner"), 3: mapStr("parameters"), 4: str("reclaimPolicy"),
			5: strs("mountOptions"), 6: bln("allowVolumeExpansion"), 7: str("volumeBindingMode"),
			8: msgs("allowedTopologies", "core.TopologySelectorTerm"),
		},
		"core.TopologySelectorTerm": {1: msgs("matchLabelExpressions", "core.TopologySelectorLabelRequirement")},
		"storage.CSINode":           {1: objectMeta(), 2: msg("spec", "storage.CSINodeSpec")},
		"storage.CSINodeSpec":       {1: required(msgs("drivers", "storage.CSINodeDriver"))},
		"storage.CSINodeDriver": {
			1: strp("name"), 2: strp("nodeID"), 3: required(strs("topologyKeys")), 4: msg("allocatable", "storage.VolumeNodeResources"),
		},
		"storage.VolumeNodeResources":           {1: i32p("count")},
		"core.TopologySelectorLabelRequirement": {1: strp("key"), 2: strs("values")},
		"storage.CSIDriver":                     {1: objectMeta(), 2: msg("spec", "storage.CSIDriverSpec")},
		"storage.CSIDriverSpec": {
			1: blnp("attachRequired"), 2: blnp("podInfoOnMount"), 3: strs("volumeLifecycleModes"), 4: blnp("storageCapacity"),
			5: str("fsGroupPolicy"), 6: msgs("tokenRequests", "storage.TokenRequest"), 7: blnp("requiresRepublish"),
			8: blnp("seLinuxMount"), 9: i64p("nodeAllocatableUpdatePeriodSeconds"), 10: blnp("serviceAccountTokenInSecrets"),
			11: blnp("preventPodSchedulingIfMissing"),
		},
		"storage.TokenRequest": {1: strp("audience"), 2: i64p("expirationSeconds")},
		"storage.VolumeAttachment": {
			1: objectMeta(), 2: msg("spec", "storage.VolumeAttachmentSpec"), 3: msg("status", "storage.VolumeAttachmentStatus"),
		},
		"storage.VolumeAttachmentSpec": {1: strp("attacher"), 2: msg("source", "storage.VolumeAttachmentSource"), 3: strp("nodeName")},
		"storage.VolumeAttachmentSource": {
			1: strp("persistentVolumeName"), 2: msg("inlineVolumeSpec", "core.PersistentVolumeSpec"),
		},
		"storage.VolumeAttachmentStatus": {
			1: blnp("attached"), 2: mapStr("attachmentMetadata"), 3: msg("attachError", "storage.VolumeError"),
			4: msg("detachError", "storage.VolumeError"),
		},
		"storage.VolumeError":           {1: timeField("time"), 2: str("message"), 3: i32p("errorCode")},
		"storage.VolumeAttributesClass": {1: objectMeta(), 2: strp("driverName"), 3: mapStr("parameters")},
		"storage.CSIStorageCapacity": {
			1: objectMeta(), 2: labelSelector("nodeTopology"), 3: strp("storageClassName"), 4: quantity("capacity"),
			5: quantity("maximumVolumeSize"),
		},
	}
}
