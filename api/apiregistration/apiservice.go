package apiregistration

import (
	"fmt"

	"github.com/orkit/orkit/api/meta"
)

// GroupName and Version name the API group.
const (
	GroupName = "apiregistration.k8s.io"
	Version   = "v1"
)

// GroupVersion returns apiregistration.k8s.io/v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// APIService registers the server of one group/version. Its name is
// "<version>.<group>".
type APIService struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            APIServiceSpec   `json:"spec,omitempty"`
	Status          APIServiceStatus `json:"status,omitempty"`
}

// APIServiceList is a list of APIServices.
type APIServiceList = meta.List[APIService]

// APIServiceSpec says where the group/version is served and how to trust
// it. A nil Service means the API server serves it itself (Local).
type APIServiceSpec struct {
	Service               *ServiceReference `json:"service,omitempty"`
	Group                 string            `json:"group,omitempty"`
	Version               string            `json:"version,omitempty"`
	InsecureSkipTLSVerify bool              `json:"insecureSkipTLSVerify,omitempty"`
	// CABundle is the PEM bundle that verifies the server's certificate.
	CABundle             []byte `json:"caBundle,omitempty"`
	GroupPriorityMinimum int32  `json:"groupPriorityMinimum"`
	VersionPriority      int32  `json:"versionPriority"`
}

// ServiceReference names the Service in front of the server; Port
// defaults to 443.
type ServiceReference struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Port      *int32 `json:"port,omitempty"`
}

// APIServiceStatus holds the Available condition.
type APIServiceStatus struct {
	Conditions []APIServiceCondition `json:"conditions,omitempty"`
}

// ConditionAvailable: the server answers its group/version's discovery.
const ConditionAvailable = "Available"

// APIServiceCondition is one condition.
type APIServiceCondition struct {
	Type               string               `json:"type"`
	Status             meta.ConditionStatus `json:"status"`
	LastTransitionTime meta.Time            `json:"lastTransitionTime,omitzero"`
	Reason             string               `json:"reason,omitempty"`
	Message            string               `json:"message,omitempty"`
}

// Available returns the Available condition, or a zero one.
func (a *APIService) Available() APIServiceCondition {
	for _, c := range a.Status.Conditions {
		if c.Type == ConditionAvailable {
			return c
		}
	}
	return APIServiceCondition{}
}

// SetAvailable sets the Available condition, keeping its transition time
// when the status does not change; it reports whether anything changed.
func (a *APIService) SetAvailable(status meta.ConditionStatus, reason, msg string, now meta.Time) bool {
	for i := range a.Status.Conditions {
		c := &a.Status.Conditions[i]
		if c.Type != ConditionAvailable {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == msg {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = status, reason, msg
		return true
	}
	a.Status.Conditions = append(a.Status.Conditions, APIServiceCondition{Type: ConditionAvailable, Status: status,
		Reason: reason, Message: msg, LastTransitionTime: now})
	return true
}

// DefaultAPIService sets the Service port to 443 when unset.
func DefaultAPIService(a *APIService) {
	if s := a.Spec.Service; s != nil && s.Port == nil {
		p := int32(443)
		s.Port = &p
	}
}

// Name returns the name an APIService for group/version must have.
func Name(group, version string) string { return fmt.Sprintf("%s.%s", version, group) }
