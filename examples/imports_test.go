// Package examples_test checks what every example under examples/ may
// import: an example shows an embedder what to write, so it uses public
// packages only.
package examples_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// internalImports returns "file: import" for every import of an
// internal package (a path with an "internal" element) in the non-test
// Go files under root.
func internalImports(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if p == "internal" || strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
				bad = append(bad, path+": "+p)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return bad
}

// TestExamplesUsePublicPackages fails when a non-test Go file under
// examples/ imports an internal package, which no module outside orkit
// could import.
func TestExamplesUsePublicPackages(t *testing.T) {
	assert.Empty(t, internalImports(t, "."), "examples must use only public packages")
}

// TestInternalImportsFound: the check sees an internal import (and
// ignores _test files, where test harnesses are fine).
func TestInternalImportsFound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		require.NoError(t, writeFile(filepath.Join(dir, name), src))
	}
	write("a/main.go", "package main\n\nimport _ \"github.com/orkit/orkit/internal/testenv\"\n")
	write("a/ok.go", "package main\n\nimport _ \"github.com/orkit/orkit/client\"\n")
	write("a/main_test.go", "package main\n\nimport _ \"github.com/orkit/orkit/internal/simcluster\"\n")
	write("b/b.go", "package b\n\nimport _ \"example.com/x/internal\"\n")
	assert.ElementsMatch(t, []string{
		filepath.Join(dir, "a/main.go") + ": github.com/orkit/orkit/internal/testenv",
		filepath.Join(dir, "b/b.go") + ": example.com/x/internal",
	}, internalImports(t, dir))
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
