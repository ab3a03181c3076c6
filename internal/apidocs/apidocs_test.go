package apidocs

import (
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtract(t *testing.T) {
	docs, err := Extract("testdata/api", "example.com/m/api")
	require.NoError(t, err)
	assert.Equal(t, map[string]TypeDoc{
		"example.com/m/api/widgets.Widget": {Doc: "Widget is a thing.\n\nIt has two paragraphs.", Fields: map[string]string{
			"size": "Size is how big it is.", "name": "Name names it.", "Plain": "Plain has no tag.",
		}},
		"example.com/m/api/widgets.Grouped": {Doc: "Grouped is declared in a group.", Fields: map[string]string{}},
	}, docs)

	_, err = Extract("testdata/missing", "x")
	assert.Error(t, err)
}

func TestRenderIsGoSource(t *testing.T) {
	src, err := Render("p", "docs", map[string]TypeDoc{"a.T": {Doc: "T \"quoted\"\n\nsecond", Fields: map[string]string{"f": "F`s doc"}}})
	require.NoError(t, err)
	_, err = parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	require.NoError(t, err, string(src))
	assert.Regexp(t, `"":\s+"T \\"quoted\\"\\n\\nsecond",`, string(src))
}
