package field

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPathString(t *testing.T) {
	tests := []struct {
		name string
		path *Path
		want string
	}{
		{"top", NewPath("metadata"), "metadata"},
		{"nested", NewPath("metadata", "name"), "metadata.name"},
		{"index", NewPath("spec").Child("containers").Index(0).Child("image"), "spec.containers[0].image"},
		{"key", NewPath("metadata", "labels").Key("app"), "metadata.labels[app]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.path.String())
		})
	}
}

func TestErrorMessages(t *testing.T) {
	p := NewPath("spec", "replicas")
	assert.Equal(t, `spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		Invalid(p, -1, "must be greater than or equal to 0").Error())
	assert.Equal(t, `spec.replicas: Required value`, Required(p, "").Error())
	assert.Equal(t, `spec.replicas: Unsupported value: "x": supported values: "a", "b"`,
		NotSupported(p, "x", []string{"a", "b"}).Error())

	assert.Equal(t, `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
		TypeInvalid(p, "string", `spec.replicas in body must be of type integer: "string"`).Error())
	assert.Equal(t, ErrorTypeTypeInvalid, TypeInvalid(p, "x", "").Type)
	assert.Equal(t, `spec.items: Too many: 4: must have at most 3 items`, TooMany(NewPath("spec", "items"), 4, 3).Error())

	l := ErrorList{Required(p, ""), Forbidden(NewPath("spec", "selector"), "field is immutable")}
	err := l.ToAggregate()
	assert.Equal(t, `[spec.replicas: Required value, spec.selector: Forbidden: field is immutable]`, err.Error())
	var fe *Error
	assert.True(t, errors.As(err, &fe))
	assert.Nil(t, ErrorList{}.ToAggregate())
}
