package apiserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orkit/orkit/api/core"
	"github.com/orkit/orkit/api/meta"
)

// TestWatchFrameMatchesJSON checks that frames built around the cached
// wire JSON are what encoding meta.WatchEvent would give.
func TestWatchFrameMatchesJSON(t *testing.T) {
	cm := &core.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "5"}, Data: map[string]string{"k": "v \"q\" <&>"}}
	raw, err := json.Marshal(cm)
	require.NoError(t, err)
	enc := watchEncoder{}
	var buf []byte
	for _, typ := range []string{meta.Added, meta.Modified, meta.Deleted, "ODD\"TYPE"} {
		t.Run(typ, func(t *testing.T) {
			buf, err = enc.encode(buf[:0], WatchEvent{Type: typ, Object: newDecodedObject("", cm, raw, nil, 5), RV: 5})
			require.NoError(t, err)
			want, err := json.Marshal(meta.WatchEvent{Type: typ, Object: raw})
			require.NoError(t, err)
			assert.Equal(t, string(want)+"\n", string(buf))
		})
	}
}
