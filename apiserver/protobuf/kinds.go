package protobuf

import (
	"sort"

	"github.com/orkit/orkit/api/meta"
)

// kindTable maps every kind ToJSON accepts to its root message type.
// DeleteOptions is handled apart: it is accepted in every group version.
func kindTable() map[meta.GroupVersionKind]string {
	core := meta.GroupVersion{Version: "v1"}
	apps := meta.GroupVersion{Group: "apps", Version: "v1"}
	rbac := meta.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}
	authz := meta.GroupVersion{Group: "authorization.k8s.io", Version: "v1"}
	authn := meta.GroupVersion{Group: "authentication.k8s.io", Version: "v1"}
	t := map[meta.GroupVersionKind]string{
		meta.GroupVersion{Group: "autoscaling", Version: "v1"}.WithKind("Scale"):                                       "autoscaling.Scale",
		meta.GroupVersion{Group: "autoscaling", Version: "v1"}.WithKind("HorizontalPodAutoscaler"):                     "autoscaling.HorizontalPodAutoscaler",
		meta.GroupVersion{Group: "autoscaling", Version: "v2"}.WithKind("HorizontalPodAutoscaler"):                     "autoscaling2.HorizontalPodAutoscaler",
		meta.GroupVersion{Group: "events.k8s.io", Version: "v1"}.WithKind("Event"):                                     "events.Event",
		meta.GroupVersion{Group: "scheduling.k8s.io", Version: "v1"}.WithKind("PriorityClass"):                         "scheduling.PriorityClass",
		meta.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}.WithKind("Lease"):                               "coordination.Lease",
		meta.GroupVersion{Group: "meta.k8s.io", Version: "v1"}.WithKind(kindDeleteOptions):                             "meta.DeleteOptions",
		meta.GroupVersion{Group: "policy", Version: "v1"}.WithKind("Eviction"):                                         "policy.Eviction",
		meta.GroupVersion{Group: "discovery.k8s.io", Version: "v1"}.WithKind("EndpointSlice"):                          "discovery.EndpointSlice",
		meta.GroupVersion{Group: "networking.k8s.io", Version: "v1"}.WithKind("Ingress"):                               "networking.Ingress",
		meta.GroupVersion{Group: "networking.k8s.io", Version: "v1"}.WithKind("IngressClass"):                          "networking.IngressClass",
		meta.GroupVersion{Group: "networking.k8s.io", Version: "v1"}.WithKind("NetworkPolicy"):                         "networking.NetworkPolicy",
		meta.GroupVersion{Group: "networking.k8s.io", Version: "v1"}.WithKind("ServiceCIDR"):                           "networking.ServiceCIDR",
		meta.GroupVersion{Group: "networking.k8s.io", Version: "v1"}.WithKind("IPAddress"):                             "networking.IPAddress",
		meta.GroupVersion{Group: "certificates.k8s.io", Version: "v1"}.WithKind("CertificateSigningRequest"):           "certs.CertificateSigningRequest",
		meta.GroupVersion{Group: "certificates.k8s.io", Version: "v1"}.WithKind("ClusterTrustBundle"):                  "certs.ClusterTrustBundle",
		meta.GroupVersion{Group: "certificates.k8s.io", Version: "v1"}.WithKind("PodCertificateRequest"):               "certs.PodCertificateRequest",
		meta.GroupVersion{Group: "node.k8s.io", Version: "v1"}.WithKind("RuntimeClass"):                                "node.RuntimeClass",
		meta.GroupVersion{Group: "storage.k8s.io", Version: "v1"}.WithKind("StorageClass"):                             "storage.StorageClass",
		meta.GroupVersion{Group: "storage.k8s.io", Version: "v1"}.WithKind("CSINode"):                                  "storage.CSINode",
		meta.GroupVersion{Group: "storage.k8s.io", Version: "v1"}.WithKind("CSIDriver"):                                "storage.CSIDriver",
		meta.GroupVersion{Group: "storage.k8s.io", Version: "v1"}.WithKind("VolumeAttachment"):                         "storage.VolumeAttachment",
		meta.GroupVersion{Group: "storage.k8s.io", Version: "v1"}.WithKind("VolumeAttributesClass"):                    "storage.VolumeAttributesClass",
		meta.GroupVersion{Group: "storage.k8s.io", Version: "v1"}.WithKind("CSIStorageCapacity"):                       "storage.CSIStorageCapacity",
		meta.GroupVersion{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}.WithKind("FlowSchema"):                 "flowcontrol.FlowSchema",
		meta.GroupVersion{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}.WithKind("PriorityLevelConfiguration"): "flowcontrol.PriorityLevelConfiguration",
		meta.GroupVersion{Group: "storagemigration.k8s.io", Version: "v1"}.WithKind("StorageVersionMigration"):         "storagemigration.StorageVersionMigration",
		meta.GroupVersion{Group: "apiextensions.k8s.io", Version: "v1"}.WithKind("CustomResourceDefinition"):           "apiext.CustomResourceDefinition",
		meta.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}.WithKind("APIService"):                       "apiregistration.APIService",
	}
	for _, k := range []string{
		"Namespace", "ConfigMap", "Secret", "Service", "ServiceAccount", "Pod", "PodTemplate", "Endpoints",
		"Event", "ResourceQuota", "LimitRange", "PersistentVolumeClaim", "PersistentVolume", "Node", "Binding",
		"ReplicationController",
	} {
		t[core.WithKind(k)] = "core." + k
	}
	for _, k := range []string{"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"} {
		t[apps.WithKind(k)] = "apps." + k
	}
	for _, k := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
		"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		t[meta.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}.WithKind(k)] = "admission." + k
	}
	for _, k := range []string{"Job", "CronJob"} {
		t[meta.GroupVersion{Group: "batch", Version: "v1"}.WithKind(k)] = "batch." + k
	}
	t[meta.GroupVersion{Group: "policy", Version: "v1"}.WithKind("PodDisruptionBudget")] = "policy.PodDisruptionBudget"
	for _, k := range []string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"} {
		t[rbac.WithKind(k)] = "rbac." + k
	}
	for _, k := range []string{"SelfSubjectAccessReview", "SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview"} {
		t[authz.WithKind(k)] = "authz." + k
	}
	for _, k := range []string{"TokenReview", "SelfSubjectReview", "TokenRequest"} {
		t[authn.WithKind(k)] = "authn." + k
	}
	return t
}

// kindDeleteOptions is accepted in any group version: client-go encodes
// the DeleteOptions of a delete call in the resource's group version or
// in meta.k8s.io/v1.
const kindDeleteOptions = "DeleteOptions"

// Kinds returns every group/version/kind ToJSON has a schema for, sorted.
// DeleteOptions is listed under meta.k8s.io/v1 but accepted in any group
// version. The slice is the caller's.
func Kinds() []meta.GroupVersionKind {
	t := defaultRegistry().kinds
	out := make([]meta.GroupVersionKind, 0, len(t))
	for gvk := range t {
		out = append(out, gvk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
