package celpolicy

import "fmt"

// Parse checks only the syntax of expr, as the admission environment
// parses it, without type-checking: for the expressions of mutating
// policies, whose Object{...} and JSONPatch{...} constructions name types
// the environment does not declare. The error wraps ErrCompile.
func Parse(expr string) error {
	e, err := env()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCompile, err)
	}
	if _, iss := e.Parse(expr); iss.Err() != nil {
		return fmt.Errorf("%w: %v", ErrCompile, iss.Err())
	}
	return nil
}
