package core

import (
	"fmt"
	"slices"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/validation"
)

// ValidateNamespace checks a Namespace: a DNS-label name and finalizers
// that are qualified names.
func ValidateNamespace(ns *Namespace) field.ErrorList {
	errs := validation.ValidateObjectMeta(&ns.ObjectMeta, false, validation.NameIsDNSLabel, field.NewPath("metadata"))
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, validateQualifiedName(string(f), field.NewPath("spec", "finalizers").Index(i))...)
	}
	errs = append(errs, validateEnum(ns.Status.Phase, false, field.NewPath("status", "phase"),
		NamespaceActive, NamespaceTerminating)...)
	return errs
}

// ValidateNamespaceUpdate checks ns as a replacement for old: valid on
// its own, metadata changed as metadata may. As in Kubernetes, spec
// finalizers change only through the finalize subresource: an API server
// keeps old's finalizers on an ordinary update (see
// ValidateNamespaceFinalizeUpdate for the subresource).
func ValidateNamespaceUpdate(ns, old *Namespace) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, ValidateNamespace(ns)...)
}

// ValidateNamespaceFinalizeUpdate checks a namespaces/{name}/finalize
// request: metadata changed as metadata may and every finalizer a
// qualified name.
func ValidateNamespaceFinalizeUpdate(ns, old *Namespace) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, validateQualifiedName(string(f), field.NewPath("spec", "finalizers").Index(i))...)
	}
	return errs
}

// ValidateSecret checks a Secret: name, keys that are valid config keys,
// total data at most 1 MiB, and the keys its type requires.
func ValidateSecret(s *Secret) field.ErrorList {
	errs := validation.ValidateObjectMeta(&s.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	dp := field.NewPath("data")
	total := 0
	for _, k := range sortedKeys(s.Data) {
		errs = append(errs, invalidAll(dp.Key(k), k, IsConfigMapKey(k))...)
		total += len(s.Data[k])
	}
	if total > MaxSecretSize {
		errs = append(errs, field.TooLong(dp, "", MaxSecretSize))
	}
	return append(errs, validateSecretType(s, dp)...)
}

// requiredSecretKeys lists the keys each secret type must carry.
var requiredSecretKeys = map[SecretType][]string{
	SecretTypeDockercfg:        {DockerConfigKey},
	SecretTypeDockerConfigJSON: {DockerConfigJSONKey},
	SecretTypeTLS:              {TLSCertKey, TLSPrivateKeyKey},
	SecretTypeSSHAuth:          {SSHAuthPrivateKey},
}

func validateSecretType(s *Secret, dp *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case SecretTypeServiceAccountToken:
		if s.Annotations[AnnotationServiceAccountName] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(AnnotationServiceAccountName), ""))
		}
	case SecretTypeBasicAuth:
		_, u := s.Data[BasicAuthUsernameKey]
		_, pw := s.Data[BasicAuthPasswordKey]
		if !u && !pw {
			errs = append(errs, field.Required(dp.Key(BasicAuthUsernameKey), ""))
			errs = append(errs, field.Required(dp.Key(BasicAuthPasswordKey), ""))
		}
	case "":
		errs = append(errs, field.Required(field.NewPath("type"), ""))
	}
	for _, k := range requiredSecretKeys[s.Type] {
		if _, ok := s.Data[k]; !ok {
			errs = append(errs, field.Required(dp.Key(k), ""))
		}
	}
	return errs
}

// ValidateSecretUpdate checks s as a replacement for old: the type is
// immutable, and an immutable secret's data may not change nor may it
// become mutable again.
func ValidateSecretUpdate(s, old *Secret) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateImmutable(s.Type, old.Type, field.NewPath("type"))...)
	if old.Immutable != nil && *old.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if !equalBytesMaps(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
		}
	}
	return append(errs, ValidateSecret(s)...)
}

// ValidateConfigMap checks a ConfigMap: name, keys valid and not in both
// data and binaryData, total size at most 1 MiB (reported on data).
func ValidateConfigMap(cm *ConfigMap) field.ErrorList {
	errs := validation.ValidateObjectMeta(&cm.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	total := 0
	for _, k := range sortedKeys(cm.Data) {
		errs = append(errs, invalidAll(field.NewPath("data").Key(k), k, IsConfigMapKey(k))...)
		total += len(cm.Data[k])
	}
	for _, k := range sortedKeys(cm.BinaryData) {
		bp := field.NewPath("binaryData").Key(k)
		errs = append(errs, invalidAll(bp, k, IsConfigMapKey(k))...)
		if _, dup := cm.Data[k]; dup {
			errs = append(errs, field.Invalid(bp, k, "duplicate of key present in data"))
		}
		total += len(cm.BinaryData[k])
	}
	if total > MaxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath("data"), "", MaxSecretSize))
	}
	return errs
}

// ValidateConfigMapUpdate checks cm as a replacement for old: an
// immutable config map's data may not change nor may it become mutable.
func ValidateConfigMapUpdate(cm, old *ConfigMap) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&cm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if old.Immutable != nil && *old.Immutable {
		if cm.Immutable == nil || !*cm.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
		}
		if fmt.Sprint(cm.Data) != fmt.Sprint(old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
		}
		if !equalBytesMaps(cm.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), "field is immutable when `immutable` is set"))
		}
	}
	return append(errs, ValidateConfigMap(cm)...)
}

// ValidateServiceAccount checks a ServiceAccount's metadata.
func ValidateServiceAccount(sa *ServiceAccount) field.ErrorList {
	return validation.ValidateObjectMeta(&sa.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

// ValidateBinding checks a Binding: the target names a Node.
func ValidateBinding(b *Binding) field.ErrorList {
	var errs field.ErrorList
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node", "<empty>"}))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	return errs
}

// Length limits of Event fields.
const (
	eventReasonLimit            = 128
	eventActionLimit            = 128
	eventReportingInstanceLimit = 128
	eventNoteLimit              = 1024
)

// ValidateEvent checks a core/v1 Event as Kubernetes does for that API
// version: the involved object's namespace matches the event's (an event
// about a cluster-scoped object lives in "default", or in "kube-system"
// for new-style events); a new-style event (eventTime set) also needs a
// reporting component that is a qualified name, a reporting instance, an
// action and a reason, within Kubernetes' lengths. The type is not
// checked, as core/v1 does not.
func ValidateEvent(ev *Event) field.ErrorList {
	return ValidateEventReportedAs(ev, "reportingComponent")
}

// ValidateEventReportedAs is ValidateEvent naming the reporting component
// field reportingField in its errors, as Kubernetes does for the API
// version a request used ("reportingController" in events.k8s.io/v1).
func ValidateEventReportedAs(ev *Event, reportingField string) field.ErrorList {
	errs := validation.ValidateObjectMeta(&ev.ObjectMeta, true, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
	nsPath := field.NewPath("involvedObject", "namespace")
	ins := ev.InvolvedObject.Namespace
	if ev.EventTime.IsZero() {
		if (ins == "" && ev.Namespace != "" && ev.Namespace != NamespaceDefault) || (ins != "" && ins != ev.Namespace) {
			errs = append(errs, field.Invalid(nsPath, ins, "does not match event.namespace"))
		}
		return errs
	}
	if ins == "" && ev.Namespace != NamespaceDefault && ev.Namespace != NamespaceSystem {
		errs = append(errs, field.Invalid(nsPath, ins, "does not match event.namespace"))
	}
	rc := field.NewPath(reportingField)
	if ev.ReportingController == "" {
		errs = append(errs, field.Required(rc, ""))
	}
	errs = append(errs, validateQualifiedName(ev.ReportingController, rc)...)
	for _, f := range []struct {
		name     string
		value    string
		limit    int
		required bool
	}{
		{"reportingInstance", ev.ReportingInstance, eventReportingInstanceLimit, true},
		{"action", ev.Action, eventActionLimit, true},
		{"reason", ev.Reason, eventReasonLimit, true},
		{"message", ev.Message, eventNoteLimit, false},
	} {
		if f.required && f.value == "" {
			errs = append(errs, field.Required(field.NewPath(f.name), ""))
		}
		if len(f.value) > f.limit {
			errs = append(errs, field.Invalid(field.NewPath(f.name), "", fmt.Sprintf("can have at most %d characters", f.limit)))
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func equalBytesMaps(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || string(v) != string(w) {
			return false
		}
	}
	return true
}
