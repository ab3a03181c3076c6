// Package readme holds the code snippets of the repository's README as
// Example tests, so the README shows code that compiles and does what it
// says (go test ./examples/readme checks the output).
package readme
