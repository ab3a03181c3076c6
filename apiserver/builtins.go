package apiserver

import (
	"time"

	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// registerScheme registers every kind of sch (Config.Scheme) as a served
// resource, adding what the built-in kinds need beyond the defaults (field
// selectors, graceful pod deletion, subresources, tables, scale), and
// skipping resources registered already (Config.Resources). User-defined
// kinds in sch get the defaults.
func (s *Server) registerScheme(sch *scheme.Scheme) error {
	extras := s.builtinExtras()
	for _, t := range sch.Types() {
		gvr := t.GroupVersionResource()
		if _, ok := s.lookup(gvr); ok {
			continue
		}
		res := Resource{Type: t}
		if x, ok := extras[gvr]; ok {
			x(&res)
		}
		if err := s.Register(res); err != nil {
			return err
		}
	}
	return s.registerViews()
}

// registerViews serves the built-in views of stored kinds (View):
// events.k8s.io/v1 events over core/v1 events, autoscaling/v1
// horizontalpodautoscalers over autoscaling/v2, each when the stored kind
// is served.
func (s *Server) registerViews() error {
	if err := s.registerEventsV1(); err != nil {
		return err
	}
	return s.registerHPAV1()
}

func coreGVR(resource string) meta.GroupVersionResource {
	return meta.GroupVersionResource{Version: "v1", Resource: resource}
}

func appsGVR(resource string) meta.GroupVersionResource {
	return meta.GroupVersionResource{Group: "apps", Version: "v1", Resource: resource}
}

// builtinExtras returns, per built-in resource, what to add to its Resource.
func (s *Server) builtinExtras() map[meta.GroupVersionResource]func(*Resource) {
	m := map[meta.GroupVersionResource]func(*Resource){
		coreGVR("pods"): func(r *Resource) {
			r.Strategy = &podStrategy{NewDefaultStrategy(r.Type)}
			r.Fields, r.FieldsFromJSON = podFields, podFieldsJSON
			r.Table = podTable
			r.Subresources = map[string]SubresourceHandler{
				"binding": SubresourceFunc(s.serveBinding),
				"log":     SubresourceFunc(s.servePodLog),
				"exec":    SubresourceFunc(s.servePodExec),
			}
			r.ObjectSubresources = []string{subresourceEphemeralContainers, subresourceResize}
			r.Subresources["attach"] = SubresourceFunc(s.servePodAttach)
			r.Subresources["portforward"] = SubresourceFunc(s.servePodPortForward)
			r.Subresources["eviction"] = SubresourceFunc(s.servePodEviction)
			r.Subresources["proxy"] = s.proxySubresource(s.locatePod)
		},
		coreGVR("bindings"): func(r *Resource) {
			r.Verbs = []string{"create"}
			r.CreateFunc = s.createBinding
		},
		coreGVR("nodes"): func(r *Resource) {
			r.Table, r.Fields = nodeTable, nodeFields
			r.Subresources = map[string]SubresourceHandler{"proxy": s.proxySubresource(s.locateNode)}
		},
		crdGVR: crdExtras,
		coreGVR("namespaces"): func(r *Resource) {
			r.Strategy = &namespaceStrategy{NewDefaultStrategy(r.Type)}
			r.Table, r.Fields = namespaceTable, namespaceFields
			r.Subresources = map[string]SubresourceHandler{"finalize": SubresourceFunc(s.serveFinalize)}
		},
		coreGVR("serviceaccounts"): func(r *Resource) {
			if s.cfg.ServiceAccountTokens != nil {
				r.Subresources = map[string]SubresourceHandler{"token": SubresourceFunc(s.serveServiceAccountToken)}
			}
		},
		coreGVR("services"): func(r *Resource) {
			r.Strategy = &serviceStrategy{NewDefaultStrategy(r.Type)}
			r.Table, r.Fields = serviceTable, serviceFields
			r.Subresources = map[string]SubresourceHandler{"proxy": s.proxySubresource(s.locateService)}
		},
		coreGVR("configmaps"): func(r *Resource) { r.Table = configMapTable },
		coreGVR("replicationcontrollers"): func(r *Resource) {
			r.Table, r.Scale = replicationControllerTable, replicationControllerScale
		},
		coreGVR("podtemplates"): func(r *Resource) { r.Table = podTemplateTable },
		coreGVR("persistentvolumes"): func(r *Resource) {
			r.Strategy = &persistentVolumeStrategy{DefaultStrategy: NewDefaultStrategy(r.Type), now: time.Now}
			r.Table = pvTable
		},
		coreGVR("persistentvolumeclaims"): func(r *Resource) {
			r.Strategy = &persistentVolumeClaimStrategy{NewDefaultStrategy(r.Type)}
			r.Table = pvcTable
		},
		{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"}: func(r *Resource) { r.Table = runtimeClassTable },
		coreGVR("secrets"):     func(r *Resource) { r.Table = secretTable; r.Fields = secretFields },
		coreGVR("endpoints"):   func(r *Resource) { r.Table = endpointsTable },
		coreGVR("events"):      func(r *Resource) { r.Fields, r.Table = eventFields, eventTable },
		appsGVR("deployments"): func(r *Resource) { r.Table = deploymentTable; r.Scale = deploymentScale },
		appsGVR("replicasets"): func(r *Resource) { r.Table = replicaSetTable; r.Scale = replicaSetScale },
		appsGVR("statefulsets"): func(r *Resource) {
			r.Table = statefulSetTable
			r.Scale = statefulSetScale
		},
		appsGVR("daemonsets"): func(r *Resource) { r.Table = daemonSetTable },
		csrGVR: func(r *Resource) {
			r.Strategy = &csrStrategy{NewDefaultStrategy(r.Type)}
			r.Table, r.Fields = csrTable, csrFields
			r.ObjectSubresources = []string{"approval"}
		},
	}
	tables := map[meta.GroupVersionResource]*TableConvertor{
		coreGVR("resourcequotas"):                             resourceQuotaTable,
		coreGVR("limitranges"):                                createdAtTable,
		appsGVR("controllerrevisions"):                        controllerRevisionTable,
		{Group: "batch", Version: "v1", Resource: "cronjobs"}: cronJobTable,
		hpaGVR:        hpaTable,
		apiServiceGVR: apiServiceTable,
		{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}:                    leaseTable,
		{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}:               endpointSliceTable,
		{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}:                   ingressTable,
		{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses"}:              ingressClassTable,
		{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}:             networkPolicyTable,
		{Group: "networking.k8s.io", Version: "v1", Resource: "servicecidrs"}:                serviceCIDRTable,
		{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses"}:                 ipAddressTable,
		{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}:             priorityClassTable,
		admissionGVR("mutatingwebhookconfigurations"):                                        mutatingWebhookTable,
		admissionGVR("validatingwebhookconfigurations"):                                      validatingWebhookTable,
		admissionGVR("validatingadmissionpolicybindings"):                                    policyBindingTable,
		{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}:                 storageClassTable,
		{Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"}:                       csiNodeTable,
		{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"}:                     csiDriverTable,
		{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattachments"}:              volumeAttachmentTable,
		{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses"}:        volumeAttributesClassTable,
		{Group: "storage.k8s.io", Version: "v1", Resource: "csistoragecapacities"}:           csiStorageCapacityTable,
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}:               createdAtTable,
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}:        createdAtTable,
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}:        roleBindingTable,
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}: roleBindingTable,
	}
	for gvr, t := range tables { // none of these has other extras
		m[gvr] = func(r *Resource) { r.Table = t }
	}
	m[pdbGVR] = func(r *Resource) { r.Table = pdbTable }
	addFlowControlExtras(m)
	s.addCertificatesExtras(m)
	addMutatingPolicyExtras(m)
	s.addDRAExtras(m)
	m[admissionGVR("validatingadmissionpolicies")] = func(r *Resource) {
		r.Strategy = &policyStrategy{NewDefaultStrategy(r.Type)}
		r.Table = validatingPolicyTable
	}
	m[meta.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}] = func(r *Resource) { r.Table, r.Fields = jobTable, jobFields }
	for _, res := range []string{"selfsubjectaccessreviews", "subjectaccessreviews", "localsubjectaccessreviews", "selfsubjectrulesreviews"} {
		m[meta.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: res}] = func(r *Resource) {
			r.Verbs = []string{"create"}
			r.CreateFunc = s.createAccessReview
		}
	}
	m[meta.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "selfsubjectreviews"}] = func(r *Resource) {
		r.Verbs = []string{"create"}
		r.CreateFunc = s.createSelfSubjectReview
	}
	m[meta.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}] = func(r *Resource) {
		r.Verbs = []string{"create"}
		r.CreateFunc = s.createTokenReview
	}
	return m
}
