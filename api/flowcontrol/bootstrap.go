package flowcontrol

import "github.com/orkit/orkit/api/meta"

// Groups and users the bootstrap configuration names, as Kubernetes'.
const (
	groupMasters         = "system:masters"
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
	groupNodes           = "system:nodes"
	groupServiceAccounts = "system:serviceaccounts"
	userControllerMgr    = "system:kube-controller-manager"
	userScheduler        = "system:kube-scheduler"
)

// Bootstrap is kube-apiserver's APF bootstrap configuration: the
// mandatory objects (which the API server keeps at their fixed spec) and
// the suggested ones (created when missing, and brought back to their
// built-in spec when they carry AutoUpdateAnnotationKey "true"). Every
// object carries that annotation. The values are fresh on each call and
// the caller's.
type Bootstrap struct {
	MandatoryPriorityLevels []*PriorityLevelConfiguration
	MandatoryFlowSchemas    []*FlowSchema
	SuggestedPriorityLevels []*PriorityLevelConfiguration
	SuggestedFlowSchemas    []*FlowSchema
}

// BootstrapConfiguration returns the configuration kube-apiserver 1.37
// creates at start.
func BootstrapConfiguration() Bootstrap {
	everything := PolicyRulesWithSubjects{
		ResourceRules:    []ResourcePolicyRule{allResources()},
		NonResourceRules: []NonResourcePolicyRule{{Verbs: []string{VerbAll}, NonResourceURLs: []string{NonResourceAll}}},
	}
	with := func(r PolicyRulesWithSubjects, subjects ...Subject) PolicyRulesWithSubjects {
		r.Subjects = subjects
		return r
	}
	anyone := []Subject{group(groupUnauthenticated), group(groupAuthenticated)}
	kubeSystemSAs := Subject{Kind: SubjectKindServiceAccount, ServiceAccount: &ServiceAccountSubject{Namespace: "kube-system", Name: NameAll}}
	return Bootstrap{
		MandatoryPriorityLevels: []*PriorityLevelConfiguration{
			limitedLevel(NameCatchAll, 5, 0, nil),
			newPriorityLevel(NameExempt, PriorityLevelConfigurationSpec{
				Type: PriorityLevelEnablementExempt, Exempt: &ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))},
			}),
		},
		MandatoryFlowSchemas: []*FlowSchema{
			newFlowSchema(NameExempt, NameExempt, 1, "", with(everything, group(groupMasters))),
			newFlowSchema(NameCatchAll, NameCatchAll, 10000, FlowDistinguisherMethodByUserType, with(everything, anyone...)),
		},
		SuggestedPriorityLevels: []*PriorityLevelConfiguration{
			limitedLevel("system", 30, 33, &QueuingConfiguration{Queues: 64, HandSize: 6, QueueLengthLimit: 50}),
			limitedLevel("node-high", 40, 25, &QueuingConfiguration{Queues: 64, HandSize: 6, QueueLengthLimit: 50}),
			limitedLevel("leader-election", 10, 0, &QueuingConfiguration{Queues: 16, HandSize: 4, QueueLengthLimit: 50}),
			limitedLevel("workload-high", 40, 50, &QueuingConfiguration{Queues: 128, HandSize: 6, QueueLengthLimit: 50}),
			limitedLevel("workload-low", 100, 90, &QueuingConfiguration{Queues: 128, HandSize: 6, QueueLengthLimit: 50}),
			limitedLevel("global-default", 20, 50, &QueuingConfiguration{Queues: 128, HandSize: 6, QueueLengthLimit: 50}),
		},
		SuggestedFlowSchemas: []*FlowSchema{
			newFlowSchema("system-nodes", "system", 500, FlowDistinguisherMethodByUserType, with(everything, group(groupNodes))),
			newFlowSchema("system-node-high", "node-high", 400, FlowDistinguisherMethodByUserType, PolicyRulesWithSubjects{
				Subjects: []Subject{group(groupNodes)},
				ResourceRules: []ResourcePolicyRule{
					{Verbs: []string{VerbAll}, APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Namespaces: []string{NamespaceEvery}, ClusterScope: true},
					{Verbs: []string{VerbAll}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Namespaces: []string{NamespaceEvery}},
				},
			}),
			newFlowSchema("probes", NameExempt, 2, "", PolicyRulesWithSubjects{
				Subjects:         anyone,
				NonResourceRules: []NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}},
			}),
			newFlowSchema("system-leader-election", "leader-election", 100, FlowDistinguisherMethodByUserType, PolicyRulesWithSubjects{
				Subjects: []Subject{user(userControllerMgr), user(userScheduler), kubeSystemSAs},
				ResourceRules: []ResourcePolicyRule{
					{Verbs: []string{"get", "create", "update"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Namespaces: []string{NamespaceEvery}},
				},
			}),
			newFlowSchema("kube-controller-manager", "workload-high", 800, FlowDistinguisherMethodByNamespaceType, with(everything, user(userControllerMgr))),
			newFlowSchema("kube-scheduler", "workload-high", 800, FlowDistinguisherMethodByNamespaceType, with(everything, user(userScheduler))),
			newFlowSchema("kube-system-service-accounts", "workload-high", 900, FlowDistinguisherMethodByNamespaceType, with(everything, kubeSystemSAs)),
			newFlowSchema("service-accounts", "workload-low", 9000, FlowDistinguisherMethodByUserType, with(everything, group(groupServiceAccounts))),
			newFlowSchema("global-default", "global-default", 9900, FlowDistinguisherMethodByUserType, with(everything, anyone...)),
		},
	}
}

// mandatoryFlowSchema returns the mandatory FlowSchema called name.
func mandatoryFlowSchema(name string) (*FlowSchema, bool) {
	for _, fs := range BootstrapConfiguration().MandatoryFlowSchemas {
		if fs.Name == name {
			return fs, true
		}
	}
	return nil, false
}

// mandatoryPriorityLevel returns the mandatory level called name.
func mandatoryPriorityLevel(name string) (*PriorityLevelConfiguration, bool) {
	for _, pl := range BootstrapConfiguration().MandatoryPriorityLevels {
		if pl.Name == name {
			return pl, true
		}
	}
	return nil, false
}

func allResources() ResourcePolicyRule {
	return ResourcePolicyRule{
		Verbs: []string{VerbAll}, APIGroups: []string{APIGroupAll}, Resources: []string{ResourceAll},
		Namespaces: []string{NamespaceEvery}, ClusterScope: true,
	}
}

func group(name string) Subject {
	return Subject{Kind: SubjectKindGroup, Group: &GroupSubject{Name: name}}
}

func user(name string) Subject {
	return Subject{Kind: SubjectKindUser, User: &UserSubject{Name: name}}
}

func bootstrapMeta(name string) meta.ObjectMeta {
	return meta.ObjectMeta{Name: name, Annotations: map[string]string{AutoUpdateAnnotationKey: "true"}}
}

// limitedLevel is a Limited level; nil queuing means Reject.
func limitedLevel(name string, shares, lendable int32, queuing *QueuingConfiguration) *PriorityLevelConfiguration {
	lr := LimitResponse{Type: LimitResponseTypeReject}
	if queuing != nil {
		lr = LimitResponse{Type: LimitResponseTypeQueue, Queuing: queuing}
	}
	return newPriorityLevel(name, PriorityLevelConfigurationSpec{
		Type: PriorityLevelEnablementLimited,
		Limited: &LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr(shares), LendablePercent: ptr(lendable), LimitResponse: lr,
		},
	})
}

func newPriorityLevel(name string, spec PriorityLevelConfigurationSpec) *PriorityLevelConfiguration {
	return &PriorityLevelConfiguration{
		TypeMeta:   meta.TypeMeta{APIVersion: GroupVersion().String(), Kind: "PriorityLevelConfiguration"},
		ObjectMeta: bootstrapMeta(name), Spec: spec,
	}
}

func newFlowSchema(name, level string, precedence int32, dm FlowDistinguisherMethodType, rules PolicyRulesWithSubjects) *FlowSchema {
	fs := &FlowSchema{
		TypeMeta:   meta.TypeMeta{APIVersion: GroupVersion().String(), Kind: "FlowSchema"},
		ObjectMeta: bootstrapMeta(name),
		Spec: FlowSchemaSpec{
			PriorityLevelConfiguration: PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			Rules:                      []PolicyRulesWithSubjects{rules},
		},
	}
	if dm != "" {
		fs.Spec.DistinguisherMethod = &FlowDistinguisherMethod{Type: dm}
	}
	return fs
}
