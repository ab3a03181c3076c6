// Package apiserver serves the Kubernetes REST API over a store.Interface.
//
// Every request runs the same chain (see README.md for the picture):
// in-flight limit → authentication (package authn) → authorization
// (package authz) → routing to a Resource → decode (JSON, YAML or
// Kubernetes protobuf) → defaults → Strategy.PrepareForCreate/Update →
// mutating admission → validation → validating admission → initializers
// → Storage → response → post-create hooks. Reads are served from a
// WatchCache per resource, fed by one store watch each; watchers get their
// events through their own buffers and a slow one is ended rather than
// allowed to slow the rest.
//
// Everything a server needs is in its Config, taken up front: the kinds
// (Config.Scheme, Config.Resources), the authenticator, factories that
// build the authorizer and the admission chain once the resources exist
// (Config.Authorizer, Config.Admission), initializers and bootstrap
// objects. New registers the resources; Start serves; no other call is
// needed, and none must come in a particular order. Register adds a
// resource later, also while serving.
//
// Built-in kinds (Config.Scheme) and user-defined kinds (Config.Resources,
// Register) go through the same code: a Resource is a scheme.Type plus a Strategy and
// optional extras (selectable fields, table columns, subresources, scale).
// A Resource with a View serves its kind as a second view of another
// kind's storage, converting on every read and write (events.k8s.io/v1
// Events over core/v1, autoscaling/v1 HorizontalPodAutoscalers over
// autoscaling/v2). /openapi/v2 serves the OpenAPI v3 schemas as one
// Swagger 2.0 document, in JSON or gnostic's protobuf.
// Errors are *meta.Status values built by api/errors; store errors become
// Statuses in one place (Storage.apiError).
package apiserver
