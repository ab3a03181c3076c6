package dra

import (
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// PodResourceClaim is one entry of a pod's spec.resourceClaims (orkit's
// core.PodSpec carries them as raw JSON): a name, and the claim to use
// (ResourceClaimName) or the template to make one from
// (ResourceClaimTemplateName); exactly one is set.
type PodResourceClaim struct {
	// Name identifies the entry in the pod (a DNS label).
	Name string `json:"name"`
	// ResourceClaimName names an existing claim in the pod's namespace.
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`
	// ResourceClaimTemplateName names the template a claim is made from
	// for the pod.
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// PodResourceClaimStatus is one entry of a pod's
// status.resourceClaimStatuses: the claim made for a template entry.
type PodResourceClaimStatus struct {
	// Name is the entry's name in spec.resourceClaims.
	Name string `json:"name"`
	// ResourceClaimName is the claim made for it.
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`
}

// PodClaims decodes a pod's spec.resourceClaims; an entry that is not a
// JSON object of that shape is an error (the API server validates pods,
// so that means a corrupt object).
func PodClaims(pod *core.Pod) ([]PodResourceClaim, error) {
	out := make([]PodResourceClaim, 0, len(pod.Spec.ResourceClaims))
	for i, raw := range pod.Spec.ResourceClaims {
		var c PodResourceClaim
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("pod %s/%s: spec.resourceClaims[%d]: %w", pod.Namespace, pod.Name, i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// PodClaimStatuses decodes a pod's status.resourceClaimStatuses.
func PodClaimStatuses(pod *core.Pod) ([]PodResourceClaimStatus, error) {
	out := make([]PodResourceClaimStatus, 0, len(pod.Status.ResourceClaimStatuses))
	for i, raw := range pod.Status.ResourceClaimStatuses {
		var s PodResourceClaimStatus
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("pod %s/%s: status.resourceClaimStatuses[%d]: %w", pod.Namespace, pod.Name, i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// EncodeClaimStatuses is the raw JSON form of statuses.
func EncodeClaimStatuses(statuses []PodResourceClaimStatus) []meta.RawJSON {
	out := make([]meta.RawJSON, len(statuses))
	for i, s := range statuses {
		out[i], _ = json.Marshal(s) // a struct of strings always marshals
	}
	return out
}

// PodClaimName returns the name of the ResourceClaim a pod's claim entry
// uses: the named claim, or the one recorded in the pod's status for a
// template entry. ok is false when the template's claim is not made yet.
func PodClaimName(pod *core.Pod, c PodResourceClaim) (name string, ok bool, err error) {
	if c.ResourceClaimName != nil {
		return *c.ResourceClaimName, true, nil
	}
	statuses, err := PodClaimStatuses(pod)
	if err != nil {
		return "", false, err
	}
	for _, s := range statuses {
		if s.Name == c.Name && s.ResourceClaimName != nil {
			return *s.ResourceClaimName, true, nil
		}
	}
	return "", false, nil
}
