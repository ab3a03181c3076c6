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
// Built-in kinds (RegisterScheme) and user-defined kinds (Register) go
// through the same code: a Resource is a scheme.Type plus a Strategy and
// optional extras (selectable fields, table columns, subresources, scale).
// Errors are *meta.Status values built by api/errors; store errors become
// Statuses in one place (Storage.apiError).
package apiserver
