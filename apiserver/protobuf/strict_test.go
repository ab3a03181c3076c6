package protobuf

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api"
)

// TestGoldenDecodesStrictly decodes the JSON of every body kubectl sends
// for a create into orkit's own type with unknown fields disallowed, as
// the API server does for fieldValidation=Strict (which kubectl create
// asks for): nothing ToJSON writes for them may be unknown to api/....
// pod.pb, whose source sets fields orkit does not carry, is left out.
func TestGoldenDecodesStrictly(t *testing.T) {
	s := api.NewScheme()
	files, err := filepath.Glob("testdata/*.pb")
	require.NoError(t, err)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pb")
		if name == "pod" || name == "ingress" { // ingress.pb is the unknown-kind case
			continue
		}
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			js, gvk, err := ToJSON(body)
			require.NoError(t, err)
			typ, ok := s.ByKind(gvk)
			if !ok {
				t.Skipf("%s is not a registered orkit kind", gvk)
			}
			obj := typ.New()
			dec := json.NewDecoder(bytes.NewReader(js))
			dec.DisallowUnknownFields()
			assert.NoError(t, dec.Decode(obj), "%s", js)
		})
	}
}
