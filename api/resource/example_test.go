package resource_test

import (
	"encoding/json"
	"fmt"

	"github.com/orkit/orkit/api/resource"
)

func ExampleParseQuantity() {
	for _, s := range []string{"1.5Gi", "0.1", "1000m", "2e3", "1024Ki"} {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s -> %s (value %d, milli %d)\n", s, q.String(), q.Value(), q.MilliValue())
	}
	_, err := resource.ParseQuantity("1Gb")
	fmt.Println(err)
	// Output:
	// 1.5Gi -> 1536Mi (value 1610612736, milli 1610612736000)
	// 0.1 -> 100m (value 1, milli 100)
	// 1000m -> 1 (value 1, milli 1000)
	// 2e3 -> 2e3 (value 2000, milli 2000000)
	// 1024Ki -> 1Mi (value 1048576, milli 1048576000)
	// quantity "1Gb": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}

func ExampleQuantity_Add() {
	requests := resource.MustParse("250m")
	requests.Add(resource.MustParse("1.5"))
	limit := resource.MustParse("2")
	fmt.Println(requests.String(), requests.Cmp(limit))
	// Output: 1750m -1
}

func ExampleQuantity_MarshalJSON() {
	type limits struct {
		Memory resource.Quantity `json:"memory"`
		CPU    resource.Quantity `json:"cpu"`
	}
	var l limits
	_ = json.Unmarshal([]byte(`{"memory":"0.5Gi","cpu":0.25}`), &l)
	b, _ := json.Marshal(l)
	fmt.Println(string(b))
	// Output: {"memory":"512Mi","cpu":"250m"}
}
