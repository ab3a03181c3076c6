// Package readme holds the code snippets of the repository's README as
// tests: Example tests for the plug-ins, tests that start a control plane
// with the README's admission chain, embed a scheduler and a simulated
// node, and build the node images. TestREADMECodeIsTested fails when a
// line of a Go block in the README appears in none of them, so the README
// shows code that compiles and does what it says.
package readme
