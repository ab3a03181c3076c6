package apps

import (
	"github.com/orkit/orkit/api/field"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/scheme"
)

// Register adds the apps/v1 kinds to s with the names, short names,
// categories and subresources kubectl expects: deployments (deploy),
// replicasets (rs) and statefulsets (sts) with status and scale,
// daemonsets (ds) with status — all four in category "all" — and
// controllerrevisions. Every kind is namespaced. It panics if a kind is
// already registered.
func Register(s *scheme.Scheme) {
	gv := meta.GroupVersion{Group: GroupName, Version: Version}
	all := []string{"all"}
	s.MustRegister(
		scheme.Type{
			Kind: gv.WithKind("Deployment"), Resource: "deployments", Namespaced: true,
			ShortNames: []string{"deploy"}, Categories: all, Subresources: []string{"status", "scale"},
			New:      func() meta.Object { return &Deployment{} },
			NewList:  func() meta.ListObject { return &DeploymentList{} },
			Default:  func(o meta.Object) { DefaultDeployment(o.(*Deployment)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateDeployment(o.(*Deployment)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateDeploymentUpdate(o.(*Deployment), old.(*Deployment))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("ReplicaSet"), Resource: "replicasets", Namespaced: true,
			ShortNames: []string{"rs"}, Categories: all, Subresources: []string{"status", "scale"},
			New:      func() meta.Object { return &ReplicaSet{} },
			NewList:  func() meta.ListObject { return &ReplicaSetList{} },
			Default:  func(o meta.Object) { DefaultReplicaSet(o.(*ReplicaSet)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateReplicaSet(o.(*ReplicaSet)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateReplicaSetUpdate(o.(*ReplicaSet), old.(*ReplicaSet))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("StatefulSet"), Resource: "statefulsets", Namespaced: true,
			ShortNames: []string{"sts"}, Categories: all, Subresources: []string{"status", "scale"},
			New:      func() meta.Object { return &StatefulSet{} },
			NewList:  func() meta.ListObject { return &StatefulSetList{} },
			Default:  func(o meta.Object) { DefaultStatefulSet(o.(*StatefulSet)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateStatefulSet(o.(*StatefulSet)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateStatefulSetUpdate(o.(*StatefulSet), old.(*StatefulSet))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("DaemonSet"), Resource: "daemonsets", Namespaced: true,
			ShortNames: []string{"ds"}, Categories: all, Subresources: []string{"status"},
			New:      func() meta.Object { return &DaemonSet{} },
			NewList:  func() meta.ListObject { return &DaemonSetList{} },
			Default:  func(o meta.Object) { DefaultDaemonSet(o.(*DaemonSet)) },
			Validate: func(o meta.Object) field.ErrorList { return ValidateDaemonSet(o.(*DaemonSet)) },
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateDaemonSetUpdate(o.(*DaemonSet), old.(*DaemonSet))
			},
		},
		scheme.Type{
			Kind: gv.WithKind("ControllerRevision"), Resource: "controllerrevisions", Namespaced: true,
			New:     func() meta.Object { return &ControllerRevision{} },
			NewList: func() meta.ListObject { return &ControllerRevisionList{} },
			Validate: func(o meta.Object) field.ErrorList {
				return ValidateControllerRevision(o.(*ControllerRevision))
			},
			ValidateUpdate: func(o, old meta.Object) field.ErrorList {
				return ValidateControllerRevisionUpdate(o.(*ControllerRevision), old.(*ControllerRevision))
			},
		},
	)
}
