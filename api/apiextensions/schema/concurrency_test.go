package schema

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConcurrentUse runs one compiled schema from many goroutines (run
// with -race): a Schema is safe for concurrent use.
func TestConcurrentUse(t *testing.T) {
	sc := mustCompile(t, fuzzSchema)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]int, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				obj := mustObj(t, fmt.Sprintf(`{"spec":{"name":"ab","replicas":%d,"tags":["a"],"extra":1}}`, i%10))
				old := DeepCopyJSON(obj).(map[string]any)
				_, _ = sc.Prune(obj)
				sc.Default(obj)
				errs[g] += len(sc.Validate(ctx, obj))
				errs[g] += len(sc.ValidateUpdate(ctx, obj, old))
			}
		}()
	}
	wg.Wait()
	for g := range errs {
		// Of every 10 objects, replicas 6..9 break the CEL rule on create and
		// on update (spec changed: pruning removed spec.extra), and replicas 0
		// breaks the minimum on create only (on update the unchanged value
		// ratchets): 50 objects give 20 + 20 + 5 errors.
		assert.Equal(t, 45, errs[g])
	}
}
