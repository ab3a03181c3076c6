// Package serviceaccount is the service account controller: every active
// namespace has a ServiceAccount named "default" (the account pods run as
// when they name none), recreated if it is deleted, as Kubernetes'
// serviceaccounts-controller keeps it.
//
// Requests are namespace names; the controller watches Namespaces and
// ServiceAccounts through its manager's shared informers.
package serviceaccount
