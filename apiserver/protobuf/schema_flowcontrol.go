package protobuf

// flowcontrolMessages are flowcontrol/v1 generated.proto's FlowSchema and
// PriorityLevelConfiguration messages and storagemigration/v1's
// StorageVersionMigration; the JSON names are the Go json tags of
// api/flowcontrol and api/storagemigration.
func flowcontrolMessages() map[string]fields {
	return map[string]fields{
		"flowcontrol.FlowSchema": {1: objectMeta(), 2: msg("spec", "flowcontrol.FlowSchemaSpec"), 3: msg("status", "flowcontrol.FlowSchemaStatus")},
		"flowcontrol.FlowSchemaSpec": {
			1: msg("priorityLevelConfiguration", "flowcontrol.PriorityLevelConfigurationReference"), 2: i32p("matchingPrecedence"),
			3: msg("distinguisherMethod", "flowcontrol.FlowDistinguisherMethod"), 4: msgs("rules", "flowcontrol.PolicyRulesWithSubjects"),
		},
		"flowcontrol.PriorityLevelConfigurationReference": {1: strp("name")},
		"flowcontrol.FlowDistinguisherMethod":             {1: strp("type")},
		"flowcontrol.PolicyRulesWithSubjects": {
			1: required(msgs("subjects", "flowcontrol.Subject")), 2: msgs("resourceRules", "flowcontrol.ResourcePolicyRule"),
			3: msgs("nonResourceRules", "flowcontrol.NonResourcePolicyRule"),
		},
		"flowcontrol.Subject": {
			1: strp("kind"), 2: msg("user", "flowcontrol.UserSubject"), 3: msg("group", "flowcontrol.GroupSubject"),
			4: msg("serviceAccount", "flowcontrol.ServiceAccountSubject"),
		},
		"flowcontrol.UserSubject":           {1: strp("name")},
		"flowcontrol.GroupSubject":          {1: strp("name")},
		"flowcontrol.ServiceAccountSubject": {1: strp("namespace"), 2: strp("name")},
		"flowcontrol.ResourcePolicyRule": {
			1: required(strs("verbs")), 2: required(strs("apiGroups")), 3: required(strs("resources")),
			4: bln("clusterScope"), 5: required(strs("namespaces")),
		},
		"flowcontrol.NonResourcePolicyRule": {1: required(strs("verbs")), 6: required(strs("nonResourceURLs"))},
		"flowcontrol.FlowSchemaStatus":      {1: msgs("conditions", "flowcontrol.Condition")},
		// FlowSchemaCondition and PriorityLevelConfigurationCondition
		// share one layout.
		"flowcontrol.Condition": {
			1: str("type"), 2: str("status"), 3: timeField("lastTransitionTime"), 4: str("reason"), 5: str("message"),
		},
		"flowcontrol.PriorityLevelConfiguration": {
			1: objectMeta(), 2: msg("spec", "flowcontrol.PriorityLevelConfigurationSpec"),
			3: msg("status", "flowcontrol.PriorityLevelConfigurationStatus"),
		},
		"flowcontrol.PriorityLevelConfigurationSpec": {
			1: strp("type"), 2: msg("limited", "flowcontrol.LimitedPriorityLevelConfiguration"),
			3: msg("exempt", "flowcontrol.ExemptPriorityLevelConfiguration"),
		},
		"flowcontrol.LimitedPriorityLevelConfiguration": {
			1: i32p("nominalConcurrencyShares"), 2: msg("limitResponse", "flowcontrol.LimitResponse"),
			3: i32p("lendablePercent"), 4: i32p("borrowingLimitPercent"),
		},
		"flowcontrol.ExemptPriorityLevelConfiguration": {1: i32p("nominalConcurrencyShares"), 2: i32p("lendablePercent")},
		"flowcontrol.LimitResponse":                    {1: strp("type"), 2: msg("queuing", "flowcontrol.QueuingConfiguration")},
		"flowcontrol.QueuingConfiguration":             {1: i32p("queues"), 2: i32p("handSize"), 3: i32p("queueLengthLimit")},
		"flowcontrol.PriorityLevelConfigurationStatus": {1: msgs("conditions", "flowcontrol.Condition")},
		"storagemigration.StorageVersionMigration": {
			1: objectMeta(), 2: msg("spec", "storagemigration.StorageVersionMigrationSpec"),
			3: msg("status", "storagemigration.StorageVersionMigrationStatus"),
		},
		"storagemigration.StorageVersionMigrationSpec":   {1: msg("resource", "storagemigration.GroupResource")},
		"storagemigration.GroupResource":                 {1: strp("group"), 2: strp("resource")},
		"storagemigration.StorageVersionMigrationStatus": {1: msgs("conditions", "meta.Condition"), 2: str("resourceVersion")},
	}
}
