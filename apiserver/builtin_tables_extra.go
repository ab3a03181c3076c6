package apiserver

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/orkit/orkit/api/apps"
	"github.com/orkit/orkit/api/coordination"
	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/rbac"
	"github.com/orkit/orkit/api/scheduling"
)

// The columns kubectl shows for events, leases, storage, RBAC, priority
// classes, controller revisions, quotas and limit ranges, as
// kube-apiserver's printers define them.
var (
	eventTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{
			col("Last Seen", "string", "The last time this event was observed.", 0),
			col("Type", "string", "Type of this event (Normal, Warning).", 0),
			col("Reason", "string", "Short, machine-understandable string that gives the reason for this event.", 0),
			col("Object", "string", "The object that this event is about.", 0),
			col("Subobject", "string", "The part of the object this event is about (a container).", 1),
			col("Source", "string", "The component reporting this event.", 1),
			col("Message", "string", "A human-readable description of the status of this operation.", 0),
			col("First Seen", "string", "The time at which the event was first recorded.", 1),
			col("Count", "integer", "The number of times this event has occurred.", 1),
			col("Name", "string", "Name of the event.", 1),
		},
		Cells: func(obj meta.Object) []any {
			e := obj.(*core.Event)
			now := time.Now()
			first := HumanAge(e.FirstTimestamp, now)
			if e.FirstTimestamp.IsZero() {
				first = HumanAge(meta.Time{Time: e.EventTime.Time}, now)
			}
			last, count := HumanAge(e.LastTimestamp, now), e.Count
			if e.LastTimestamp.IsZero() {
				last = first
			}
			if e.Series != nil {
				last, count = HumanAge(meta.Time{Time: e.Series.LastObservedTime.Time}, now), e.Series.Count
			} else if count == 0 {
				count = 1
			}
			source := orDefault(e.Source.Component, e.ReportingController)
			if host := orDefault(e.Source.Host, e.ReportingInstance); host != "" {
				source += ", " + host
			}
			return []any{last, e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name,
				e.InvolvedObject.FieldPath, source, strings.TrimSpace(e.Message), first, int64(count), e.Name}
		},
	}
	leaseTable = &TableConvertor{
		Columns: []TableColumn{col("Holder", "string", "The holder of the lease.", 0)},
		Cells: func(obj meta.Object) []any {
			l := obj.(*coordination.Lease)
			if l.Spec.HolderIdentity == nil {
				return []any{""}
			}
			return []any{*l.Spec.HolderIdentity}
		},
	}
	pvcTable = &TableConvertor{
		Columns: []TableColumn{
			col("Status", "string", "The phase of the claim.", 0), col("Volume", "string", "The volume bound to the claim.", 0),
			col("Capacity", "string", "The capacity of the bound volume.", 0),
			col("Access Modes", "string", "The access modes of the bound volume.", 0),
			col("StorageClass", "string", "The storage class of the claim.", 0),
			col("VolumeAttributesClass", "string", "The volume attributes class of the claim.", 0),
			col("VolumeMode", "string", "Filesystem or Block.", 1),
		},
		Cells: func(obj meta.Object) []any {
			c := obj.(*core.PersistentVolumeClaim)
			phase := string(c.Status.Phase)
			if c.DeletionTimestamp != nil {
				phase = "Terminating"
			}
			capacity, modes := "", ""
			if c.Spec.VolumeName != "" {
				modes = accessModes(c.Status.AccessModes)
				if q, ok := c.Status.Capacity[core.ResourceStorage]; ok {
					capacity = q.String()
				}
			}
			return []any{phase, c.Spec.VolumeName, capacity, modes, derefOr(c.Spec.StorageClassName, ""),
				derefOr(c.Spec.VolumeAttributesClassName, "<unset>"), volumeMode(c.Spec.VolumeMode)}
		},
	}
	pvTable = &TableConvertor{
		AgeBefore: "VolumeMode",
		Columns: []TableColumn{
			col("Capacity", "string", "The capacity of the volume.", 0), col("Access Modes", "string", "The access modes of the volume.", 0),
			col("Reclaim Policy", "string", "What happens to the volume when its claim is released.", 0),
			col("Status", "string", "The phase of the volume.", 0), col("Claim", "string", "The claim bound to the volume.", 0),
			col("StorageClass", "string", "The storage class of the volume.", 0),
			col("VolumeAttributesClass", "string", "The volume attributes class of the volume.", 0),
			col("Reason", "string", "Why the volume is in its phase.", 0),
			col("VolumeMode", "string", "Filesystem or Block.", 1),
		},
		Cells: func(obj meta.Object) []any {
			v := obj.(*core.PersistentVolume)
			claim := ""
			if r := v.Spec.ClaimRef; r != nil {
				claim = r.Namespace + "/" + r.Name
			}
			phase := string(v.Status.Phase)
			if v.DeletionTimestamp != nil {
				phase = "Terminating"
			}
			capacity := ""
			if q, ok := v.Spec.Capacity[core.ResourceStorage]; ok {
				capacity = q.String()
			}
			return []any{capacity, accessModes(v.Spec.AccessModes), string(v.Spec.PersistentVolumeReclaimPolicy), phase, claim,
				v.Spec.StorageClassName, derefOr(v.Spec.VolumeAttributesClassName, "<unset>"), v.Status.Reason, volumeMode(v.Spec.VolumeMode)}
		},
	}
	// createdAtTable is the table of kinds kubectl lists with their
	// creation time rather than an age (roles, limit ranges).
	createdAtTable = &TableConvertor{
		NoDefaults: true,
		Columns: []TableColumn{nameColumn,
			{Name: "Created At", Type: "date", Description: "CreationTimestamp is a timestamp representing the server time when this object was created."}},
		Cells: func(obj meta.Object) []any {
			m := obj.GetObjectMeta()
			return []any{m.Name, m.CreationTimestamp.UTC().Format(time.RFC3339)}
		},
	}
	roleBindingTable = &TableConvertor{
		Columns: []TableColumn{
			col("Role", "string", "The role the binding grants.", 0),
			col("Users", "string", "Users in the binding.", 1), col("Groups", "string", "Groups in the binding.", 1),
			col("ServiceAccounts", "string", "ServiceAccounts in the binding.", 1),
		},
		Cells: func(obj meta.Object) []any {
			var ref rbac.RoleRef
			var subjects []rbac.Subject
			switch b := obj.(type) {
			case *rbac.RoleBinding:
				ref, subjects = b.RoleRef, b.Subjects
			case *rbac.ClusterRoleBinding:
				ref, subjects = b.RoleRef, b.Subjects
			}
			var users, groups, sas []string
			for _, s := range subjects {
				switch s.Kind {
				case "User":
					users = append(users, s.Name)
				case "Group":
					groups = append(groups, s.Name)
				case "ServiceAccount":
					sas = append(sas, s.Namespace+"/"+s.Name)
				}
			}
			return []any{ref.Kind + "/" + ref.Name, strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
		},
	}
	priorityClassTable = &TableConvertor{
		AgeBefore: "PreemptionPolicy",
		Columns: []TableColumn{
			col("Value", "integer", "The priority of pods in this class.", 0),
			col("Global-Default", "boolean", "Whether this class is the default for pods that name none.", 0),
			col("PreemptionPolicy", "string", "Whether pods of this class may preempt others.", 0),
		},
		Cells: func(obj meta.Object) []any {
			pc := obj.(*scheduling.PriorityClass)
			policy := string(core.PreemptLowerPriority)
			if pc.PreemptionPolicy != nil {
				policy = string(*pc.PreemptionPolicy)
			}
			return []any{int64(pc.Value), pc.GlobalDefault, policy}
		},
	}
	controllerRevisionTable = &TableConvertor{
		Columns: []TableColumn{
			col("Controller", "string", "The controller of this revision.", 0),
			col("Revision", "integer", "The revision number.", 0),
		},
		Cells: func(obj meta.Object) []any {
			r := obj.(*apps.ControllerRevision)
			controller := "<none>"
			if ref := meta.ControllerOf(&r.ObjectMeta); ref != nil {
				kind := strings.ToLower(ref.Kind)
				if g, _, ok := strings.Cut(ref.APIVersion, "/"); ok {
					kind += "." + g
				}
				controller = kind + "/" + ref.Name
			}
			return []any{controller, r.Revision}
		},
	}
	resourceQuotaTable = &TableConvertor{
		AgeBefore: "Request",
		Columns: []TableColumn{
			col("Request", "string", "Used and hard requests and object counts.", 0),
			col("Limit", "string", "Used and hard limits.", 0),
		},
		Cells: func(obj meta.Object) []any {
			q := obj.(*core.ResourceQuota)
			names := make([]string, 0, len(q.Status.Hard))
			for n := range q.Status.Hard {
				names = append(names, string(n))
			}
			sort.Strings(names)
			var req, lim []string
			for _, n := range names {
				used, hard := q.Status.Used[core.ResourceName(n)], q.Status.Hard[core.ResourceName(n)]
				s := fmt.Sprintf("%s: %s/%s", n, used.String(), hard.String())
				if strings.HasPrefix(n, "limits.") {
					lim = append(lim, s)
				} else {
					req = append(req, s)
				}
			}
			return []any{strings.Join(req, ", "), strings.Join(lim, ", ")}
		},
	}
)

// accessModes abbreviates access modes as kubectl does: RWO, ROX, RWX,
// RWOP, in that order, each once.
func accessModes(modes []core.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  core.PersistentVolumeAccessMode
		short string
	}{{"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}} {
		for _, have := range modes {
			if have == m.mode {
				out = append(out, m.short)
				break
			}
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(m *core.PersistentVolumeMode) string {
	if m == nil {
		return "Filesystem"
	}
	return string(*m)
}

func derefOr(s *string, d string) string {
	if s == nil {
		return d
	}
	return *s
}
