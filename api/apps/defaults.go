package apps

import (
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

func int32Ptr(v int32) *int32 { return &v }

func intOrStrPtr(v meta.IntOrString) *meta.IntOrString { return &v }

// DefaultDeployment fills d's unset fields as Kubernetes' apps/v1 does:
// replicas 1, strategy RollingUpdate with maxUnavailable and maxSurge 25%,
// revisionHistoryLimit 10, progressDeadlineSeconds 600, and the pod
// template's defaults (core.DefaultPodTemplateSpec).
func DefaultDeployment(d *Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = int32Ptr(1)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &RollingUpdateDeployment{}
		}
		ru := s.Strategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = intOrStrPtr(meta.FromString("25%"))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = intOrStrPtr(meta.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = int32Ptr(10)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = int32Ptr(600)
	}
	core.DefaultPodTemplateSpec(&s.Template)
}

// DefaultReplicaSet fills replicas (1) and the pod template's defaults.
func DefaultReplicaSet(rs *ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = int32Ptr(1)
	}
	core.DefaultPodTemplateSpec(&rs.Spec.Template)
}

// DefaultStatefulSet fills s's unset fields as Kubernetes' apps/v1 does:
// replicas 1, podManagementPolicy OrderedReady, updateStrategy RollingUpdate
// with partition 0, revisionHistoryLimit 10, claim retention Retain/Retain,
// and the defaults of the pod template and of each volume claim template.
func DefaultStatefulSet(s *StatefulSet) {
	spec := &s.Spec
	if spec.Replicas == nil {
		spec.Replicas = int32Ptr(1)
	}
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = OrderedReadyPodManagement
	}
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = RollingUpdateStatefulSetStrategyType
		if spec.UpdateStrategy.RollingUpdate == nil {
			spec.UpdateStrategy.RollingUpdate = &RollingUpdateStatefulSetStrategy{}
		}
	}
	if ru := spec.UpdateStrategy.RollingUpdate; spec.UpdateStrategy.Type == RollingUpdateStatefulSetStrategyType &&
		ru != nil && ru.Partition == nil {
		ru.Partition = int32Ptr(0)
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = int32Ptr(10)
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if p := spec.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted == "" {
		p.WhenDeleted = RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p := spec.PersistentVolumeClaimRetentionPolicy; p.WhenScaled == "" {
		p.WhenScaled = RetainPersistentVolumeClaimRetentionPolicyType
	}
	core.DefaultPodTemplateSpec(&spec.Template)
	for i := range spec.VolumeClaimTemplates {
		core.DefaultPersistentVolumeClaim(&spec.VolumeClaimTemplates[i])
	}
}

// DefaultDaemonSet fills d's unset fields as Kubernetes' apps/v1 does:
// updateStrategy RollingUpdate with maxUnavailable 1 and maxSurge 0,
// revisionHistoryLimit 10, and the pod template's defaults.
func DefaultDaemonSet(d *DaemonSet) {
	spec := &d.Spec
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = RollingUpdateDaemonSetStrategyType
	}
	if spec.UpdateStrategy.Type == RollingUpdateDaemonSetStrategyType {
		if spec.UpdateStrategy.RollingUpdate == nil {
			spec.UpdateStrategy.RollingUpdate = &RollingUpdateDaemonSet{}
		}
		ru := spec.UpdateStrategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = intOrStrPtr(meta.FromInt(1))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = intOrStrPtr(meta.FromInt(0))
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = int32Ptr(10)
	}
	core.DefaultPodTemplateSpec(&spec.Template)
}
