// Package admission is the stage between authorization and storage: a
// chain of mutating plugins (Mutator) that may change an object, then a
// chain of validating plugins (Validator) that may only accept or reject
// it. Any error rejects the request and nothing is stored. The package
// also holds the built-in plugins and the Initializer interface with the
// runner that calls Go initializers.
package admission
