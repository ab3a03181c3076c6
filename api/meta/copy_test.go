package meta

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type copyKind struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Items      []string `json:"items"`
}

func TestDeepCopy(t *testing.T) {
	orig := &copyKind{ObjectMeta: ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}}, Items: []string{"x"}}
	var obj Object = orig
	cp := DeepCopy(obj)
	c, ok := cp.(*copyKind)
	assert.True(t, ok, "copy keeps the dynamic type behind an interface")
	c.Labels["k"] = "changed"
	c.Items[0] = "y"
	assert.Equal(t, "v", orig.Labels["k"])
	assert.Equal(t, "x", orig.Items[0])

	v := DeepCopy(*orig)
	assert.Equal(t, "a", v.Name)
	var nilp *copyKind
	assert.Nil(t, DeepCopy(nilp))
}
