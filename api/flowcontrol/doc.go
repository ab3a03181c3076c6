// Package flowcontrol holds the flowcontrol.apiserver.k8s.io/v1 kinds of
// API Priority and Fairness: FlowSchema (which requests belong to which
// priority level, by subject, verb, resource and non-resource URL) and
// PriorityLevelConfiguration (how much concurrency a level is given and
// whether excess requests queue or are rejected), with kube-apiserver's
// defaults, validation, scheme registration and its bootstrap
// configuration (the mandatory "exempt" and "catch-all" objects and the
// suggested ones, see Bootstrap).
//
// In orkit these objects are served and kept (with the status conditions
// kube-apiserver's configuration controller writes), but they do not
// steer request handling: the API server's fair queuing is configured by
// the serving package's priority levels. See apiserver/README.md.
//
// The kinds marshal to JSON exactly as Kubernetes' flowcontrol/v1 for
// every field they carry. Values are plain data with no internal
// synchronisation.
package flowcontrol
