package widgets

// Widget is a thing.
//
// It has two paragraphs.
type Widget struct {
	// Size is how big
	// it is.
	Size int    `json:"size,omitempty"`
	Name string `json:"name"` // Name names it.
	// Hidden is not on the wire.
	Hidden string `json:"-"`
	// Plain has no tag.
	Plain        string
	secret       string
	Undocumented bool `json:"undocumented"`
}

type (
	// Grouped is declared in a group.
	Grouped struct{}
	bare    struct{ X int }
)

// NotAStruct is left out.
type NotAStruct string
