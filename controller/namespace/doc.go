// Package namespace is the namespace controller: a deleted (Terminating)
// namespace has everything in it deleted, then its "kubernetes"
// finalizer cleared, after which the API server removes it, as
// Kubernetes' namespace controller does.
//
//	Namespace event ──▶ queue ──▶ Reconcile(name)
//	    not terminating, or no "kubernetes" finalizer ─▶ nothing
//	    discovery: every namespaced resource that can be listed and deleted
//	    delete the pods first; while any is left, nothing else
//	    then delete the rest (deletecollection, else one by one)
//	    record the deletion conditions (Kubernetes' five: discovery,
//	      group versions, content failure, content and finalizers remaining)
//	    anything left (graceful pod deletion, finalizers) ─▶ look again shortly
//	    nothing left ─▶ PUT namespaces/<name>/finalize without "kubernetes"
//
// The finalize subresource is written through the manager's client
// (client.FinalizeNamespace), or by the Finalizer the Config names.
package namespace
