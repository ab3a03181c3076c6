// Package admissionreview holds admission.k8s.io/v1 AdmissionReview, the
// body the API server POSTs to an admission webhook and the webhook
// answers with: the request (who does what to which object) going out,
// the response (allowed or not, a JSONPatch, warnings) coming back.
//
// Types marshal to JSON exactly as Kubernetes' do, so webhook servers
// written for Kubernetes understand them. Values are plain data with no
// internal synchronisation.
package admissionreview
