// Package standard registers the standard set of built-in controllers on
// a controller.Manager in one call, as kube-controller-manager starts its
// default controllers:
//
//	standard.Add(m, standard.Config{...})
//	  ├─ workloads   replicaset, replicationcontroller, deployment, statefulset, daemonset, job, cronjob
//	  ├─ policy      disruption, resourcequota
//	  ├─ autoscaling horizontalpodautoscaling (reads metrics.k8s.io)
//	  ├─ services    endpoints, servicelb (with a load balancer provider)
//	  ├─ namespaces  namespace, serviceaccount
//	  ├─ nodes       nodeipam, nodelifecycle, podgc
//	  ├─ storage     volumebinding, localpath (with a base directory), storage-version-migrator
//	  └─ cleanup     garbagecollector
//
// Every built-in controller is made the same way, New(m, Config) on the
// manager whose informers, client, logger and Event recorder it shares;
// Config holds each one's Config, so what differs between clusters (the
// pod network for node IPAM, the load balancer provider, the local-path
// provisioner's directory) is set in one place. A program that wants a different set
// adds the controllers it wants itself, or lists the others in
// Config.Disabled.
package standard
