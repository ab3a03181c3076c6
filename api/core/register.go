package core

import (
	"fmt"

	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// The group and version of every kind here: the core group "" at version
// v1 ("apiVersion": "v1").
const (
	GroupName = ""
	Version   = "v1"
)

// GroupVersion returns the core group's version, v1.
func GroupVersion() meta.GroupVersion { return meta.GroupVersion{Group: GroupName, Version: Version} }

// Register adds every core/v1 kind to s (see Types). It panics if one of
// them is already registered, which is a wiring bug; use Types with
// s.Register to handle that as an error instead.
func Register(s *scheme.Scheme) { s.MustRegister(Types()...) }

// Types returns the scheme entries of the core/v1 kinds — resource names,
// scope, short names, categories and subresources as Kubernetes serves
// them, constructors, defaulting and validation. Each call returns fresh
// values the caller owns.
func Types() []scheme.Type {
	var ts []scheme.Type
	ts = append(ts, workloadTypes()...)
	ts = append(ts, configTypes()...)
	return append(ts, networkStorageTypes()...)
}

// workloadTypes returns the kinds of the pod pipeline: Pod, Node, Namespace,
// ReplicationController, PodTemplate, Binding, Event.
func workloadTypes() []scheme.Type {
	return []scheme.Type{
		{
			Kind: GroupVersion().WithKind("Pod"), Resource: "pods", Namespaced: true,
			ShortNames: []string{"po"}, Categories: []string{"all"},
			Subresources:   []string{"status", "binding", "log", "exec", "attach", "portforward", "eviction", "ephemeralcontainers", "resize"},
			New:            func() meta.Object { return &Pod{} },
			NewList:        func() meta.ListObject { return &PodList{} },
			Default:        defaulter(DefaultPod),
			Validate:       validator(ValidatePodCreate),
			ValidateUpdate: updateValidator(ValidatePodUpdate),
		},
		{
			Kind: GroupVersion().WithKind("Node"), Resource: "nodes", ShortNames: []string{"no"},
			Subresources:   []string{"status"},
			New:            func() meta.Object { return &Node{} },
			NewList:        func() meta.ListObject { return &NodeList{} },
			Default:        defaulter(DefaultNode),
			Validate:       validator(ValidateNode),
			ValidateUpdate: updateValidator(ValidateNodeUpdate),
		},
		{
			Kind: GroupVersion().WithKind("Namespace"), Resource: "namespaces", ShortNames: []string{"ns"},
			Subresources:   []string{"status", "finalize"},
			New:            func() meta.Object { return &Namespace{} },
			NewList:        func() meta.ListObject { return &NamespaceList{} },
			Default:        defaulter(DefaultNamespace),
			Validate:       validator(ValidateNamespace),
			ValidateUpdate: updateValidator(ValidateNamespaceUpdate),
		},
		{
			Kind: GroupVersion().WithKind("ReplicationController"), Resource: "replicationcontrollers", Namespaced: true,
			ShortNames: []string{"rc"}, Categories: []string{"all"}, Subresources: []string{"status", "scale"},
			New:            func() meta.Object { return &ReplicationController{} },
			NewList:        func() meta.ListObject { return &ReplicationControllerList{} },
			Default:        defaulter(DefaultReplicationController),
			Validate:       validator(ValidateReplicationController),
			ValidateUpdate: updateValidator(ValidateReplicationControllerUpdate),
		},
		{
			Kind: GroupVersion().WithKind("PodTemplate"), Resource: "podtemplates", Namespaced: true,
			New:            func() meta.Object { return &PodTemplate{} },
			NewList:        func() meta.ListObject { return &PodTemplateList{} },
			Default:        defaulter(DefaultPodTemplate),
			Validate:       validator(ValidatePodTemplate),
			ValidateUpdate: updateValidator(ValidatePodTemplateUpdate),
		},
		{
			// Binding is create-only: the API server handles POSTs to
			// bindings and pods/{name}/binding by setting the pod's node.
			Kind: GroupVersion().WithKind("Binding"), Resource: "bindings", Namespaced: true,
			New:      func() meta.Object { return &Binding{} },
			NewList:  func() meta.ListObject { return &BindingList{} },
			Validate: validator(ValidateBinding),
		},
		{
			Kind: GroupVersion().WithKind("Event"), Resource: "events", Namespaced: true,
			ShortNames: []string{"ev"},
			New:        func() meta.Object { return &Event{} },
			NewList:    func() meta.ListObject { return &EventList{} },
			Validate:   validator(ValidateEvent),
			ValidateUpdate: updateValidator(func(n, o *Event) field.ErrorList {
				return append(metaUpdate(&n.ObjectMeta, &o.ObjectMeta), ValidateEvent(n)...)
			}),
		},
	}
}

// configTypes returns the configuration and policy kinds: Secret, ConfigMap, ServiceAccount, ResourceQuota, LimitRange.
func configTypes() []scheme.Type {
	return []scheme.Type{
		{
			Kind: GroupVersion().WithKind("Secret"), Resource: "secrets", Namespaced: true,
			New:            func() meta.Object { return &Secret{} },
			NewList:        func() meta.ListObject { return &SecretList{} },
			Default:        defaulter(DefaultSecret),
			Validate:       validator(ValidateSecret),
			ValidateUpdate: updateValidator(ValidateSecretUpdate),
		},
		{
			Kind: GroupVersion().WithKind("ConfigMap"), Resource: "configmaps", Namespaced: true,
			ShortNames:     []string{"cm"},
			New:            func() meta.Object { return &ConfigMap{} },
			NewList:        func() meta.ListObject { return &ConfigMapList{} },
			Validate:       validator(ValidateConfigMap),
			ValidateUpdate: updateValidator(ValidateConfigMapUpdate),
		},
		{
			Kind: GroupVersion().WithKind("ServiceAccount"), Resource: "serviceaccounts", Namespaced: true,
			ShortNames: []string{"sa"}, Subresources: []string{"token"},
			New:      func() meta.Object { return &ServiceAccount{} },
			NewList:  func() meta.ListObject { return &ServiceAccountList{} },
			Validate: validator(ValidateServiceAccount),
			ValidateUpdate: updateValidator(func(n, o *ServiceAccount) field.ErrorList {
				return append(metaUpdate(&n.ObjectMeta, &o.ObjectMeta), ValidateServiceAccount(n)...)
			}),
		},
		{
			Kind: GroupVersion().WithKind("ResourceQuota"), Resource: "resourcequotas", Namespaced: true,
			ShortNames: []string{"quota"}, Subresources: []string{"status"},
			New:            func() meta.Object { return &ResourceQuota{} },
			NewList:        func() meta.ListObject { return &ResourceQuotaList{} },
			Default:        defaulter(DefaultResourceQuota),
			Validate:       validator(ValidateResourceQuota),
			ValidateUpdate: updateValidator(ValidateResourceQuotaUpdate),
		},
		{
			Kind: GroupVersion().WithKind("LimitRange"), Resource: "limitranges", Namespaced: true,
			ShortNames: []string{"limits"},
			New:        func() meta.Object { return &LimitRange{} },
			NewList:    func() meta.ListObject { return &LimitRangeList{} },
			Default:    defaulter(DefaultLimitRange),
			Validate:   validator(ValidateLimitRange),
			ValidateUpdate: updateValidator(func(n, o *LimitRange) field.ErrorList {
				return append(metaUpdate(&n.ObjectMeta, &o.ObjectMeta), ValidateLimitRange(n)...)
			}),
		},
	}
}

// networkStorageTypes returns the networking and storage kinds: Service, Endpoints, PersistentVolume, PersistentVolumeClaim.
func networkStorageTypes() []scheme.Type {
	return []scheme.Type{
		{
			Kind: GroupVersion().WithKind("Service"), Resource: "services", Namespaced: true,
			ShortNames: []string{"svc"}, Categories: []string{"all"}, Subresources: []string{"status"},
			New:            func() meta.Object { return &Service{} },
			NewList:        func() meta.ListObject { return &ServiceList{} },
			Default:        defaulter(DefaultService),
			Validate:       validator(ValidateService),
			ValidateUpdate: updateValidator(ValidateServiceUpdate),
		},
		{
			Kind: GroupVersion().WithKind("Endpoints"), Resource: "endpoints", Namespaced: true,
			ShortNames: []string{"ep"},
			New:        func() meta.Object { return &Endpoints{} },
			NewList:    func() meta.ListObject { return &EndpointsList{} },
			Default:    defaulter(DefaultEndpoints),
			Validate:   validator(ValidateEndpoints),
			ValidateUpdate: updateValidator(func(n, o *Endpoints) field.ErrorList {
				return append(metaUpdate(&n.ObjectMeta, &o.ObjectMeta), ValidateEndpoints(n)...)
			}),
		},
		{
			Kind: GroupVersion().WithKind("PersistentVolume"), Resource: "persistentvolumes",
			ShortNames: []string{"pv"}, Subresources: []string{"status"},
			New:            func() meta.Object { return &PersistentVolume{} },
			NewList:        func() meta.ListObject { return &PersistentVolumeList{} },
			Default:        defaulter(DefaultPersistentVolume),
			Validate:       validator(ValidatePersistentVolume),
			ValidateUpdate: updateValidator(ValidatePersistentVolumeUpdate),
		},
		{
			Kind: GroupVersion().WithKind("PersistentVolumeClaim"), Resource: "persistentvolumeclaims", Namespaced: true,
			ShortNames: []string{"pvc"}, Subresources: []string{"status"},
			New:            func() meta.Object { return &PersistentVolumeClaim{} },
			NewList:        func() meta.ListObject { return &PersistentVolumeClaimList{} },
			Default:        defaulter(DefaultPersistentVolumeClaim),
			Validate:       validator(ValidatePersistentVolumeClaim),
			ValidateUpdate: updateValidator(ValidatePersistentVolumeClaimUpdate),
		},
	}
}

// defaulter adapts a typed defaulting function to scheme.Type.Default; an
// object of another type is left alone.
func defaulter[T any](fn func(*T)) func(meta.Object) {
	return func(o meta.Object) {
		if t, ok := any(o).(*T); ok {
			fn(t)
		}
	}
}

// validator adapts a typed validation function; an object of another type
// is an internal error.
func validator[T any](fn func(*T) field.ErrorList) func(meta.Object) field.ErrorList {
	return func(o meta.Object) field.ErrorList {
		t, ok := any(o).(*T)
		if !ok {
			return field.ErrorList{wrongType[T](o)}
		}
		return fn(t)
	}
}

// updateValidator adapts a typed update validation function.
func updateValidator[T any](fn func(obj, old *T) field.ErrorList) func(obj, old meta.Object) field.ErrorList {
	return func(obj, old meta.Object) field.ErrorList {
		n, ok1 := any(obj).(*T)
		o, ok2 := any(old).(*T)
		switch {
		case !ok1:
			return field.ErrorList{wrongType[T](obj)}
		case !ok2:
			return field.ErrorList{wrongType[T](old)}
		}
		return fn(n, o)
	}
}

func wrongType[T any](o meta.Object) *field.Error {
	return field.InternalError(field.NewPath("kind"), fmt.Errorf("%w: want %T, got %T", ErrWrongType, new(T), o))
}
