package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orkit/orkit/api/meta"
)

func TestWithoutOwner(t *testing.T) {
	refs := []meta.OwnerReference{{UID: "a"}, {UID: "b"}, {UID: "a"}}
	assert.Equal(t, []meta.OwnerReference{{UID: "b"}}, WithoutOwner(refs, "a"))
	assert.Len(t, refs, 3, "the input is not changed")
	assert.NotNil(t, WithoutOwner(nil, "a"), "an empty list, not nil: a merge patch must clear the field")
}
