package protobuf

// Field numbers in this file are data taken from k8s.io/api apps/v1 and
// k8s.io/apimachinery meta/v1 generated.proto; the JSON names are the Go
// types' json tags.

// metaMessages covers meta/v1 types embedded in objects and DeleteOptions.
func metaMessages() map[string]fields {
	return map[string]fields{
		"meta.ObjectMeta": {
			1: str("name"), 2: str("generateName"), 3: str("namespace"), 4: str("selfLink"), 5: str("uid"),
			6: str("resourceVersion"), 7: i64("generation"), 8: timeField("creationTimestamp"),
			9: timeField("deletionTimestamp"), 10: i64p("deletionGracePeriodSeconds"), 11: mapStr("labels"),
			12: mapStr("annotations"), 13: msgs("ownerReferences", "meta.OwnerReference"),
			16: msg("initializers", "meta.Initializers"), 14: strs("finalizers"),
			17: msgs("managedFields", "meta.ManagedFieldsEntry"),
		},
		"meta.OwnerReference": {
			5: strp("apiVersion"), 1: strp("kind"), 3: strp("name"), 4: strp("uid"),
			6: blnp("controller"), 7: blnp("blockOwnerDeletion"),
		},
		"meta.Initializers": {1: required(msgs("pending", "meta.Initializer")), 2: msg("result", "meta.Status")},
		"meta.Initializer":  {1: strp("name")},
		"meta.Status": {
			1: msg("metadata", "meta.ListMeta"), 2: str("status"), 3: str("message"), 4: str("reason"),
			5: msg("details", "meta.StatusDetails"), 6: i32("code"),
		},
		"meta.StatusDetails": {
			1: str("name"), 2: str("group"), 3: str("kind"), 6: str("uid"),
			4: msgs("causes", "meta.StatusCause"), 5: i32("retryAfterSeconds"),
		},
		"meta.StatusCause": {1: str("reason"), 2: str("message"), 3: str("field")},
		"meta.ListMeta": {
			1: str("selfLink"), 2: str("resourceVersion"), 3: str("continue"), 4: i64p("remainingItemCount"),
		},
		"meta.LabelSelector": {
			1: mapStr("matchLabels"), 2: msgs("matchExpressions", "meta.LabelSelectorRequirement"),
		},
		"meta.LabelSelectorRequirement": {1: strp("key"), 2: strp("operator"), 3: strs("values")},
		"meta.ManagedFieldsEntry": {
			1: str("manager"), 2: str("operation"), 3: str("apiVersion"), 4: timeField("time"),
			6: str("fieldsType"), 7: msg("fieldsV1", typeFieldsV1), 8: str("subresource"),
		},
		"meta.Condition": {
			1: strp("type"), 2: strp("status"), 3: i64("observedGeneration"), 4: timeField("lastTransitionTime"),
			5: strp("reason"), 6: strp("message"),
		},
		"meta.DeleteOptions": {
			1: i64p("gracePeriodSeconds"), 2: msg("preconditions", "meta.Preconditions"),
			3: blnp("orphanDependents"), 4: strp("propagationPolicy"), 5: strs("dryRun"),
			6: blnp("ignoreStoreReadErrorWithClusterBreakingPotential"),
		},
		"meta.Preconditions": {1: strp("uid"), 2: strp("resourceVersion")},
	}
}

// appsMessages covers apps/v1.
func appsMessages() map[string]fields {
	return map[string]fields{
		"apps.Deployment": {1: objectMeta(), 2: msg("spec", "apps.DeploymentSpec"), 3: msg("status", "apps.DeploymentStatus")},
		"apps.DeploymentSpec": {
			1: i32p("replicas"), 2: labelSelector("selector"), 3: msg("template", "core.PodTemplateSpec"),
			4: msg("strategy", "apps.DeploymentStrategy"), 5: i32("minReadySeconds"), 6: i32p("revisionHistoryLimit"),
			7: bln("paused"), 9: i32p("progressDeadlineSeconds"), 10: strp("podReplacementPolicy"),
		},
		"apps.DeploymentStrategy": {1: str("type"), 2: msg("rollingUpdate", "apps.RollingUpdateDeployment")},
		"apps.RollingUpdateDeployment": {
			1: intOrString("maxUnavailable"), 2: intOrString("maxSurge"),
		},
		"apps.DeploymentStatus": {
			1: i64("observedGeneration"), 2: i32("replicas"), 3: i32("updatedReplicas"), 7: i32("readyReplicas"),
			4: i32("availableReplicas"), 5: i32("unavailableReplicas"), 9: i32p("terminatingReplicas"),
			6: msgs("conditions", "apps.DeploymentCondition"), 8: i32p("collisionCount"),
		},
		"apps.DeploymentCondition": {
			1: strp("type"), 2: strp("status"), 6: timeField("lastUpdateTime"), 7: timeField("lastTransitionTime"),
			4: str("reason"), 5: str("message"),
		},
		"apps.ReplicaSet": {1: objectMeta(), 2: msg("spec", "apps.ReplicaSetSpec"), 3: msg("status", "apps.ReplicaSetStatus")},
		"apps.ReplicaSetSpec": {
			1: i32p("replicas"), 4: i32("minReadySeconds"), 2: labelSelector("selector"),
			3: msg("template", "core.PodTemplateSpec"),
		},
		"apps.ReplicaSetStatus": {
			1: i32p("replicas"), 2: i32("fullyLabeledReplicas"), 4: i32("readyReplicas"), 5: i32("availableReplicas"),
			7: i32p("terminatingReplicas"), 3: i64("observedGeneration"), 6: msgs("conditions", "apps.ReplicaSetCondition"),
		},
		"apps.ReplicaSetCondition":  conditionFields(),
		"apps.StatefulSetCondition": conditionFields(),
		"apps.DaemonSetCondition":   conditionFields(),
		"apps.StatefulSet": {
			1: objectMeta(), 2: msg("spec", "apps.StatefulSetSpec"), 3: msg("status", "apps.StatefulSetStatus"),
		},
		"apps.StatefulSetSpec": {
			1: i32p("replicas"), 2: labelSelector("selector"), 3: msg("template", "core.PodTemplateSpec"),
			4: msgs("volumeClaimTemplates", "core.PersistentVolumeClaim"), 5: str("serviceName"),
			6: str("podManagementPolicy"), 7: msg("updateStrategy", "apps.StatefulSetUpdateStrategy"),
			8: i32p("revisionHistoryLimit"), 9: i32("minReadySeconds"),
			10: msg("persistentVolumeClaimRetentionPolicy", "apps.StatefulSetPersistentVolumeClaimRetentionPolicy"),
			11: msg("ordinals", "apps.StatefulSetOrdinals"),
		},
		"apps.StatefulSetUpdateStrategy": {1: str("type"), 2: msg("rollingUpdate", "apps.RollingUpdateStatefulSetStrategy")},
		"apps.RollingUpdateStatefulSetStrategy": {
			1: i32p("partition"), 2: intOrString("maxUnavailable"),
		},
		"apps.StatefulSetPersistentVolumeClaimRetentionPolicy": {1: str("whenDeleted"), 2: str("whenScaled")},
		"apps.StatefulSetOrdinals":                             {1: i32p("start")},
		"apps.StatefulSetStatus": {
			1: i64("observedGeneration"), 2: i32p("replicas"), 3: i32("readyReplicas"), 4: i32("currentReplicas"),
			5: i32("updatedReplicas"), 6: str("currentRevision"), 7: str("updateRevision"), 9: i32p("collisionCount"),
			10: msgs("conditions", "apps.StatefulSetCondition"), 11: i32p("availableReplicas"),
		},
		"apps.DaemonSet": {1: objectMeta(), 2: msg("spec", "apps.DaemonSetSpec"), 3: msg("status", "apps.DaemonSetStatus")},
		"apps.DaemonSetSpec": {
			1: labelSelector("selector"), 2: msg("template", "core.PodTemplateSpec"),
			3: msg("updateStrategy", "apps.DaemonSetUpdateStrategy"), 4: i32("minReadySeconds"),
			6: i32p("revisionHistoryLimit"),
		},
		"apps.DaemonSetUpdateStrategy": {1: str("type"), 2: msg("rollingUpdate", "apps.RollingUpdateDaemonSet")},
		"apps.RollingUpdateDaemonSet":  {1: intOrString("maxUnavailable"), 2: intOrString("maxSurge")},
		"apps.DaemonSetStatus": {
			1: i32p("currentNumberScheduled"), 2: i32p("numberMisscheduled"), 3: i32p("desiredNumberScheduled"),
			4: i32p("numberReady"), 5: i64("observedGeneration"), 6: i32("updatedNumberScheduled"),
			7: i32("numberAvailable"), 8: i32("numberUnavailable"), 9: i32p("collisionCount"),
			10: msgs("conditions", "apps.DaemonSetCondition"),
		},
		"apps.ControllerRevision": {1: objectMeta(), 2: msg("data", typeRawExt), 3: i64p("revision")},
	}
}

// conditionFields is the {type, status, lastTransitionTime, reason,
// message} condition shape shared by ReplicaSet, StatefulSet and DaemonSet.
func conditionFields() fields {
	return fields{1: strp("type"), 2: strp("status"), 3: timeField("lastTransitionTime"), 4: str("reason"), 5: str("message")}
}
