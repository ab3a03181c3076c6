package resourcequota_test

import (
	"strconv"

	"github.com/orkit/orkit/api/resource"
)

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

func itoa(n int) string { return strconv.Itoa(n) }
