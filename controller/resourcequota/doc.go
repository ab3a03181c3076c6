// Package resourcequota is the resource quota controller: it keeps the
// status of every ResourceQuota — status.hard mirroring spec.hard, and
// status.used computed from the objects of the quota's namespace — as
// Kubernetes' does.
//
//	quota / Pod / Service / Secret / ConfigMap / PVC / workload event ──▶ queue ──▶ Reconcile(ns/name)
//	    resources = what spec.hard's names charge (admission.QuotaResources):
//	                pods, services, secrets, configmaps, persistentvolumeclaims,
//	                count/<resource>.<group>, compute (requests.*, limits.*),
//	                storage (requests.storage, per class), services.nodeports/loadbalancers
//	    objects   = the namespace's objects of each, from the shared informers
//	                (other count/ resources: listed through the API)
//	    used      = admission.QuotaUsed: their charges, scopes applied, finished
//	                pods left out; zero for every tracked name
//	    write     = status {hard, used} when it differs; resync every ResyncPeriod
//
// The admission plugin (admission.ResourceQuota) is the other writer: it
// adds each admitted object's charge at once, and this controller gives
// usage back when objects go away.
package resourcequota
