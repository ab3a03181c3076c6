package images

import "errors"

// Sentinel errors, wrapped with detail; check with errors.Is.
var (
	// ErrInvalidSpec: the Spec lacks a ref or a package, or names an
	// impossible file.
	ErrInvalidSpec = errors.New("invalid image spec")
	// ErrNoModule: no go.mod was found above the directory.
	ErrNoModule = errors.New("module root not found")
	// ErrBuild: `go build` (or `go list`) failed; the error carries its output.
	ErrBuild = errors.New("go build failed")
)
