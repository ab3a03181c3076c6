package apiserver

// groupKind names a kind across versions.
type groupKind struct{ Group, Kind string }

// strategyRule is what kube-apiserver's strategy of a built-in kind does
// with metadata.generation and with a status sent on create.
type strategyRule struct {
	generation         GenerationPolicy
	keepStatusOnCreate bool
	statusMetadata     StatusMetadataPolicy
}

// builtinStrategyRules gives every built-in kind the rules of its
// strategy in kube-apiserver (pkg/registry/<group>/<kind>/strategy.go):
// the workload kinds and PodDisruptionBudget count spec changes in
// metadata.generation (Deployment annotation changes too); the other
// kinds have no generation; a Node keeps the status it is created with.
// apiserver/README.md lists them. Kinds not here (user-defined ones) get
// custom resources' rules. statusMetadataRules adds what a status update
// may change of the metadata.
var builtinStrategyRules = withStatusMetadata(builtinGenerationRules)

// statusMetadataRules gives the kinds whose status strategy in
// kube-apiserver (PrepareForUpdate of its statusStrategy) lets a status
// update change metadata: most reset only the spec; Deployment also the
// labels, Pod the owner references. The others (APIService,
// ValidatingAdmissionPolicy, custom resources) reset the metadata too.
// The CustomResourceDefinition's status strategy calls
// ResetObjectMetaForStatus with the new object twice, which changes
// nothing (kubernetes#137681), so its metadata changes are kept.
var statusMetadataRules = map[groupKind]StatusMetadataPolicy{
	{Kind: "Pod"}:                                                     StatusMetadataUpdatedButOwners,
	{Group: "apps", Kind: "Deployment"}:                               StatusMetadataUpdatedButLabels,
	{Kind: "Namespace"}:                                               StatusMetadataUpdated,
	{Kind: "Node"}:                                                    StatusMetadataUpdated,
	{Kind: "Service"}:                                                 StatusMetadataUpdated,
	{Kind: "ReplicationController"}:                                   StatusMetadataUpdated,
	{Kind: "ResourceQuota"}:                                           StatusMetadataUpdated,
	{Kind: "PersistentVolume"}:                                        StatusMetadataUpdated,
	{Kind: "PersistentVolumeClaim"}:                                   StatusMetadataUpdated,
	{Group: "apps", Kind: "ReplicaSet"}:                               StatusMetadataUpdated,
	{Group: "apps", Kind: "StatefulSet"}:                              StatusMetadataUpdated,
	{Group: "apps", Kind: "DaemonSet"}:                                StatusMetadataUpdated,
	{Group: "batch", Kind: "Job"}:                                     StatusMetadataUpdated,
	{Group: "batch", Kind: "CronJob"}:                                 StatusMetadataUpdated,
	{Group: "policy", Kind: "PodDisruptionBudget"}:                    StatusMetadataUpdated,
	{Group: "networking.k8s.io", Kind: "Ingress"}:                     StatusMetadataUpdated,
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:           StatusMetadataUpdated,
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: StatusMetadataUpdated,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: StatusMetadataUpdated,
}

// withStatusMetadata returns rules with statusMetadataRules filled in.
func withStatusMetadata(rules map[groupKind]strategyRule) map[groupKind]strategyRule {
	for gk, p := range statusMetadataRules {
		r := rules[gk]
		r.statusMetadata = p
		rules[gk] = r
	}
	return rules
}

// builtinGenerationRules are the generation and create rules per kind.
var builtinGenerationRules = map[groupKind]strategyRule{
	{Kind: "Pod"}:                                                                     {generation: GenerationOnSpec},
	{Group: "apps", Kind: "Deployment"}:                                               {generation: GenerationOnSpecOrAnnotations},
	{Group: "apps", Kind: "ReplicaSet"}:                                               {generation: GenerationOnSpec},
	{Group: "apps", Kind: "StatefulSet"}:                                              {generation: GenerationOnSpec},
	{Group: "apps", Kind: "DaemonSet"}:                                                {generation: GenerationOnSpec},
	{Group: "batch", Kind: "Job"}:                                                     {generation: GenerationOnSpec},
	{Group: "batch", Kind: "CronJob"}:                                                 {generation: GenerationOnSpec},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                                    {generation: GenerationOnSpec},
	{Kind: "ReplicationController"}:                                                   {generation: GenerationOnSpec},
	{Kind: "PodTemplate"}:                                                             {generation: GenerationNone},
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:                 {generation: GenerationOnSpec},
	{Kind: "Node"}:                                                                    {generation: GenerationNone, keepStatusOnCreate: true},
	{Kind: "Namespace"}:                                                               {generation: GenerationNone},
	{Group: "events.k8s.io", Kind: "Event"}:                                           {generation: GenerationNone},
	{Kind: "Binding"}:                                                                 {generation: GenerationNone},
	{Kind: "Event"}:                                                                   {generation: GenerationNone},
	{Kind: "Secret"}:                                                                  {generation: GenerationNone},
	{Kind: "ConfigMap"}:                                                               {generation: GenerationNone},
	{Kind: "ServiceAccount"}:                                                          {generation: GenerationNone},
	{Kind: "ResourceQuota"}:                                                           {generation: GenerationNone},
	{Kind: "LimitRange"}:                                                              {generation: GenerationNone},
	{Kind: "Service"}:                                                                 {generation: GenerationNone},
	{Kind: "Endpoints"}:                                                               {generation: GenerationNone},
	{Kind: "PersistentVolume"}:                                                        {generation: GenerationNone},
	{Kind: "PersistentVolumeClaim"}:                                                   {generation: GenerationNone},
	{Group: "apps", Kind: "ControllerRevision"}:                                       {generation: GenerationNone},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                                {generation: GenerationNone},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                         {generation: GenerationNone},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                         {generation: GenerationNone},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  {generation: GenerationNone},
	{Group: "coordination.k8s.io", Kind: "Lease"}:                                     {generation: GenerationNone},
	{Group: "networking.k8s.io", Kind: "Ingress"}:                                     {generation: GenerationOnSpec},
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                {generation: GenerationOnSpec},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                               {generation: GenerationOnSpec},
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:                                 {generation: GenerationNone},
	{Group: "networking.k8s.io", Kind: "IPAddress"}:                                   {generation: GenerationNone},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                                {generation: GenerationOnChangeOrLabels},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               {generation: GenerationNone},
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                      {generation: GenerationNone},
	{Group: "admissionregistration.k8s.io", Kind: "InitializerConfiguration"}:         {generation: GenerationNone},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     {generation: GenerationOnChange},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   {generation: GenerationOnChange},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        {generation: GenerationOnSpec},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: {generation: GenerationOnSpec},
	{Group: "authorization.k8s.io", Kind: "SubjectAccessReview"}:                      {generation: GenerationNone},
	{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"}:                  {generation: GenerationNone},
	{Group: "authorization.k8s.io", Kind: "LocalSubjectAccessReview"}:                 {generation: GenerationNone},
	{Group: "authorization.k8s.io", Kind: "SelfSubjectRulesReview"}:                   {generation: GenerationNone},
	{Group: "authentication.k8s.io", Kind: "TokenReview"}:                             {generation: GenerationNone},
	{Group: "authentication.k8s.io", Kind: "SelfSubjectReview"}:                       {generation: GenerationNone},
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:                 {generation: GenerationNone},
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:                        {generation: GenerationNone},
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}:                     {generation: GenerationNone},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   {generation: GenerationNone},
	{Group: "storage.k8s.io", Kind: "CSINode"}:                                        {generation: GenerationNone},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      {generation: GenerationNone},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                               {generation: GenerationNone},
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}:                          {generation: GenerationNone},
	{Group: "storage.k8s.io", Kind: "CSIStorageCapacity"}:                             {generation: GenerationNone},
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                             {generation: GenerationOnSpec},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                           {generation: GenerationOnSpec},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       {generation: GenerationOnSpec},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       {generation: GenerationOnSpec},
	{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"}:               {generation: GenerationNone},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          {generation: GenerationOnSpec},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   {generation: GenerationOnSpec},
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:                                   {generation: GenerationOnSpec},
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                                 {generation: GenerationOnSpec},
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:                               {generation: GenerationOnSpec},
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:                                 {generation: GenerationNone},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:                         {generation: GenerationNone},
}
