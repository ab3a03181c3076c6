package protobuf

// Field numbers in this file are data taken from k8s.io/api rbac/v1,
// authorization/v1, policy/v1, authentication/v1, autoscaling/v1, scheduling/v1,
// coordination/v1 and certificates/v1 generated.proto; the JSON names are the Go json tags.

// rbacMessages covers rbac.authorization.k8s.io/v1.
func rbacMessages() map[string]fields {
	return map[string]fields{
		"rbac.Role": {1: objectMeta(), 2: required(msgs("rules", "rbac.PolicyRule"))},
		"rbac.ClusterRole": {
			1: objectMeta(), 2: required(msgs("rules", "rbac.PolicyRule")), 3: msg("aggregationRule", "rbac.AggregationRule"),
		},
		"rbac.RoleBinding": {
			1: objectMeta(), 2: msgs("subjects", "rbac.Subject"), 3: msg("roleRef", "rbac.RoleRef"),
		},
		"rbac.ClusterRoleBinding": {
			1: objectMeta(), 2: msgs("subjects", "rbac.Subject"), 3: msg("roleRef", "rbac.RoleRef"),
		},
		"rbac.PolicyRule": {
			1: required(strs("verbs")), 2: strs("apiGroups"), 3: strs("resources"), 4: strs("resourceNames"), 5: strs("nonResourceURLs"),
		},
		"rbac.AggregationRule": {1: msgs("clusterRoleSelectors", "meta.LabelSelector")},
		"rbac.RoleRef":         {1: strp("apiGroup"), 2: strp("kind"), 3: strp("name")},
		"rbac.Subject":         {1: strp("kind"), 2: str("apiGroup"), 3: strp("name"), 4: str("namespace")},
	}
}

// authMessages covers authorization.k8s.io/v1 and authentication.k8s.io/v1.
func authMessages() map[string]fields {
	review := func(spec, status string) fields {
		return fields{1: objectMeta(), 2: msg("spec", spec), 3: msg("status", status)}
	}
	return map[string]fields{
		"authz.SubjectAccessReview":      review("authz.SubjectAccessReviewSpec", "authz.SubjectAccessReviewStatus"),
		"authz.LocalSubjectAccessReview": review("authz.SubjectAccessReviewSpec", "authz.SubjectAccessReviewStatus"),
		"authz.SelfSubjectAccessReview":  review("authz.SelfSubjectAccessReviewSpec", "authz.SubjectAccessReviewStatus"),
		"authz.SelfSubjectRulesReview":   review("authz.SelfSubjectRulesReviewSpec", "authz.SubjectRulesReviewStatus"),
		"authz.SubjectAccessReviewSpec": {
			1: msg("resourceAttributes", "authz.ResourceAttributes"),
			2: msg("nonResourceAttributes", "authz.NonResourceAttributes"),
			3: str("user"), 4: strs("groups"), 5: mapMsg("extra", "authz.ExtraValue"), 6: str("uid"),
		},
		"authz.SelfSubjectAccessReviewSpec": {
			1: msg("resourceAttributes", "authz.ResourceAttributes"),
			2: msg("nonResourceAttributes", "authz.NonResourceAttributes"),
		},
		"authz.ResourceAttributes": {
			1: str("namespace"), 2: str("verb"), 3: str("group"), 4: str("version"), 5: str("resource"),
			6: str("subresource"), 7: str("name"), 8: msg("fieldSelector", "authz.FieldSelectorAttributes"),
			9: msg("labelSelector", "authz.LabelSelectorAttributes"),
		},
		"authz.FieldSelectorAttributes": {
			1: str("rawSelector"), 2: msgs("requirements", "authz.FieldSelectorRequirement"),
		},
		"authz.FieldSelectorRequirement": {1: strp("key"), 2: strp("operator"), 3: strs("values")},
		"authz.LabelSelectorAttributes": {
			1: str("rawSelector"), 2: msgs("requirements", "meta.LabelSelectorRequirement"),
		},
		"authz.NonResourceAttributes": {1: str("path"), 2: str("verb")},
		"authz.SubjectAccessReviewStatus": {
			1: blnp("allowed"), 4: bln("denied"), 2: str("reason"), 3: str("evaluationError"),
		},
		"authz.SelfSubjectRulesReviewSpec": {1: str("namespace")},
		"authz.SubjectRulesReviewStatus": {
			1: required(msgs("resourceRules", "authz.ResourceRule")), 2: required(msgs("nonResourceRules", "authz.NonResourceRule")),
			3: blnp("incomplete"), 4: str("evaluationError"),
		},
		"authz.ResourceRule": {
			1: required(strs("verbs")), 2: strs("apiGroups"), 3: strs("resources"), 4: strs("resourceNames"),
		},
		"authz.NonResourceRule": {1: required(strs("verbs")), 2: strs("nonResourceURLs")},
		"authn.TokenReview":     review("authn.TokenReviewSpec", "authn.TokenReviewStatus"),
		"authn.TokenReviewSpec": {1: str("token"), 2: strs("audiences")},
		"authn.TokenReviewStatus": {
			1: bln("authenticated"), 2: msg("user", "authn.UserInfo"), 4: strs("audiences"), 3: str("error"),
		},
		"authn.UserInfo": {
			1: str("username"), 2: str("uid"), 3: strs("groups"), 4: mapMsg("extra", "authn.ExtraValue"),
		},
		"authn.SelfSubjectReview":       {1: objectMeta(), 2: msg("status", "authn.SelfSubjectReviewStatus")},
		"authn.SelfSubjectReviewStatus": {1: msg("userInfo", "authn.UserInfo")},
		"authn.TokenRequest":            review("authn.TokenRequestSpec", "authn.TokenRequestStatus"),
		"authn.TokenRequestSpec": {
			1: required(strs("audiences")), 4: i64p("expirationSeconds"), 3: msg("boundObjectRef", "authn.BoundObjectReference"),
		},
		"authn.BoundObjectReference": {1: str("kind"), 2: str("apiVersion"), 3: str("name"), 4: str("uid")},
		"authn.TokenRequestStatus":   {1: strp("token"), 2: timeField("expirationTimestamp")},
	}
}

// otherMessages covers autoscaling/v1 Scale and HorizontalPodAutoscaler, scheduling/v1 PriorityClass,
// coordination/v1 Lease, certificates/v1 CertificateSigningRequest,
// ClusterTrustBundle and PodCertificateRequest and
// policy/v1 Eviction (kubectl drain).
func otherMessages() map[string]fields {
	return map[string]fields{
		"policy.Eviction": {1: objectMeta(), 2: msg("deleteOptions", "meta.DeleteOptions")},
		"autoscaling.Scale": {
			1: objectMeta(), 2: msg("spec", "autoscaling.ScaleSpec"), 3: msg("status", "autoscaling.ScaleStatus"),
		},
		"autoscaling.ScaleSpec": {1: i32("replicas")},
		"autoscaling.HorizontalPodAutoscaler": {
			1: objectMeta(), 2: msg("spec", "autoscaling.HorizontalPodAutoscalerSpec"),
			3: msg("status", "autoscaling.HorizontalPodAutoscalerStatus"),
		},
		"autoscaling.HorizontalPodAutoscalerSpec": {
			1: msg("scaleTargetRef", "autoscaling.CrossVersionObjectReference"), 2: i32p("minReplicas"),
			3: i32p("maxReplicas"), 4: i32p("targetCPUUtilizationPercentage"),
		},
		"autoscaling.CrossVersionObjectReference": {1: strp("kind"), 2: strp("name"), 3: str("apiVersion")},
		"autoscaling.HorizontalPodAutoscalerStatus": {
			1: i64p("observedGeneration"), 2: timeField("lastScaleTime"), 3: i32p("currentReplicas"),
			4: i32p("desiredReplicas"), 5: i32p("currentCPUUtilizationPercentage"),
		},
		"autoscaling.ScaleStatus": {1: i32p("replicas"), 2: str("selector")},
		"scheduling.PriorityClass": {
			1: objectMeta(), 2: i32p("value"), 3: bln("globalDefault"), 4: str("description"), 5: strp("preemptionPolicy"),
		},
		"node.RuntimeClass": {
			1: objectMeta(), 2: strp("handler"), 3: msg("overhead", "node.Overhead"), 4: msg("scheduling", "node.Scheduling"),
		},
		"node.Overhead":      {1: quantities("podFixed")},
		"node.Scheduling":    {1: mapStr("nodeSelector"), 2: msgs("tolerations", "core.Toleration")},
		"coordination.Lease": {1: objectMeta(), 2: msg("spec", "coordination.LeaseSpec")},
		"certs.CertificateSigningRequest": {
			1: objectMeta(), 2: msg("spec", "certs.CertificateSigningRequestSpec"), 3: msg("status", "certs.CertificateSigningRequestStatus"),
		},
		"certs.CertificateSigningRequestSpec": {
			1: byt("request"), 7: str("signerName"), 8: i32p("expirationSeconds"), 5: strs("usages"),
			2: str("username"), 3: str("uid"), 4: strs("groups"), 6: mapMsg("extra", "certs.ExtraValue"),
		},
		"certs.CertificateSigningRequestStatus": {
			1: msgs("conditions", "certs.CertificateSigningRequestCondition"), 2: byt("certificate"),
		},
		"certs.CertificateSigningRequestCondition": {
			1: str("type"), 6: str("status"), 2: str("reason"), 3: str("message"),
			4: timeField("lastUpdateTime"), 5: timeField("lastTransitionTime"),
		},
		"certs.ClusterTrustBundle":     {1: objectMeta(), 2: msg("spec", "certs.ClusterTrustBundleSpec")},
		"certs.ClusterTrustBundleSpec": {1: str("signerName"), 2: strp("trustBundle")},
		"certs.PodCertificateRequest": {
			1: objectMeta(), 2: msg("spec", "certs.PodCertificateRequestSpec"), 3: msg("status", "certs.PodCertificateRequestStatus"),
		},
		"certs.PodCertificateRequestSpec": {
			1: strp("signerName"), 2: strp("podName"), 3: strp("podUID"), 4: strp("serviceAccountName"),
			5: strp("serviceAccountUID"), 6: strp("nodeName"), 7: strp("nodeUID"), 8: i32p("maxExpirationSeconds"),
			12: byt("stubPKCS10Request"), 11: mapStr("unverifiedUserAnnotations"),
		},
		"certs.PodCertificateRequestStatus": {
			1: msgs("conditions", "meta.Condition"), 2: str("certificateChain"), 4: timeField("notBefore"),
			5: timeField("beginRefreshAt"), 6: timeField("notAfter"),
		},
		"coordination.LeaseSpec": {
			1: strp("holderIdentity"), 2: i32p("leaseDurationSeconds"), 3: msg("acquireTime", typeMicroTime),
			4: msg("renewTime", typeMicroTime), 5: i32p("leaseTransitions"), 6: strp("strategy"), 7: strp("preferredHolder"),
		},
	}
}
