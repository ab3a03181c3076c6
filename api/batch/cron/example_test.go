package cron_test

import (
	"fmt"
	"time"

	"github.com/orkit/orkit/api/batch/cron"
)

func ExampleParse() {
	s, err := cron.Parse("*/15 9-17 * * MON-FRI")
	if err != nil {
		panic(err)
	}
	t := time.Date(2026, 11, 20, 17, 50, 0, 0, time.UTC) // a Friday
	fmt.Println(s.Next(t))
	_, err = cron.Parse("61 * * * *")
	fmt.Println(cron.Message(err))
	// Output:
	// 2026-11-23 09:00:00 +0000 UTC
	// end of range (61) above maximum (59): 61
}
