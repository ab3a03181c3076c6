// Command custom-resource shows a user-defined kind served by orkit's API
// server exactly like the built-in ones, with its own controller.
//
// The kind is Widget (example.orkit.io/v1, namespaced, resource
// "widgets", short name "wd", spec.size, status.ready). It is described
// once as a scheme.Type — Go types, defaulting, validation, short names,
// the status subresource — and served through apiserver.Resource with a
// Table for `kubectl get` (SIZE, READY). Discovery, OpenAPI, watch,
// patch and the status subresource come with it.
//
// The widget controller, built on the controller framework (Manager,
// controller.New, WatchObjects, WatchOwned), keeps one ConfigMap per
// Widget, owned by it through an ownerReference, and sets status.ready
// once the ConfigMap matches the spec. The garbage collector deletes the
// ConfigMap when its Widget goes.
//
//	go run ./examples/custom-resource --data-dir /tmp/widgets
package main
