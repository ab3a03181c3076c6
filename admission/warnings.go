package admission

import "context"

// WarningRecorder collects the warnings admission plugins send to the
// client (kubectl prints each as "Warning: <text>"). The API server puts
// one in the context of every write; implementations must be safe for
// concurrent use (validating webhooks run in parallel).
type WarningRecorder interface {
	AddWarning(text string)
}

type warningKey struct{}

// WithWarningRecorder returns ctx carrying r.
func WithWarningRecorder(ctx context.Context, r WarningRecorder) context.Context {
	return context.WithValue(ctx, warningKey{}, r)
}

// AddWarning records text on the recorder of ctx; without one (an
// in-process caller) the warning is dropped.
func AddWarning(ctx context.Context, text string) {
	if r, ok := ctx.Value(warningKey{}).(WarningRecorder); ok && r != nil && text != "" {
		r.AddWarning(text)
	}
}
