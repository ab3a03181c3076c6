// Package servicelb is the service load balancer controller: Services of
// type LoadBalancer get a load balancer from a provider and its address
// in status.loadBalancer.ingress, as the cloud controller manager's
// service controller does.
//
//	Service/Node event ──▶ queue ──▶ Reconcile(ns/name)
//	    type LoadBalancer, not deleted ─▶ add the cleanup finalizer,
//	        provider.EnsureLoadBalancer(svc, ready nodes) ─▶ status ingress
//	    otherwise, if it had one ─▶ provider.EnsureDeleted, clear status,
//	        remove the finalizer
//
// LoadBalancer is the provider interface; Loopback is the provider for
// machines without a cloud: it hands out 127.0.0.1 or addresses of a
// configured pool, and does nothing else.
package servicelb
