package readme_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// squash trims s and collapses its runs of blanks, so gofmt's alignment
// does not count.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestREADMECodeIsTested: every line of every Go block in README.md
// appears in this package's tests, which compile and run it, so the
// README cannot drift from code that works.
func TestREADMECodeIsTested(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range strings.Split(string(b), "\n") {
			src.WriteString(squash(line) + "\n")
		}
	}
	tested := src.String()
	inGo, blocks := false, 0
	for i, line := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(line, "```go"):
			inGo, blocks = true, blocks+1
		case strings.HasPrefix(line, "```"):
			inGo = false
		case inGo && squash(line) != "":
			assert.Truef(t, strings.Contains(tested, squash(line)), "README.md:%d %q is not in examples/readme's tests", i+1, line)
		}
	}
	assert.GreaterOrEqual(t, blocks, 4, "README's Go blocks")
}
