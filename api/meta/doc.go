// Package meta holds the metadata every object carries — TypeMeta, ObjectMeta,
// ListMeta — and the API's common types: Status (the error object),
// LabelSelector, Condition, DeleteOptions, WatchEvent, Time and IntOrString.
//
// Every type marshals to JSON exactly as Kubernetes' meta/v1 does for the
// fields it carries, so kubectl and client libraries read and write it
// unchanged. Objects are plain structs; DeepCopy copies any of them.
package meta
