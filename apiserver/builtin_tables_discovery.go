package apiserver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/orkit/orkit/api/discovery"
	"github.com/orkit/orkit/api/meta"
)

// endpointSliceTable is kube-apiserver's printer of EndpointSlices: the
// address type, the ports (<unset> for all ports or none) and the first
// three addresses.
var endpointSliceTable = &TableConvertor{
	Columns: []TableColumn{
		col("AddressType", "string", "The type of address held in the EndpointSlice", 0),
		col("Ports", "string", "The ports exposed by the EndpointSlice", 0),
		col("Endpoints", "string", "The endpoints of the EndpointSlice", 0),
	},
	Cells: func(obj meta.Object) []any {
		s := obj.(*discovery.EndpointSlice)
		var ports, addrs []string
		for _, p := range s.Ports {
			if p.Port == nil {
				ports = append(ports, "<unset>")
			} else {
				ports = append(ports, strconv.Itoa(int(*p.Port)))
			}
		}
		for _, e := range s.Endpoints {
			addrs = append(addrs, e.Addresses...)
		}
		return []any{string(s.AddressType), firstThree(ports), firstThree(addrs)}
	},
}

// firstThree joins up to three values and counts the rest, as kubectl's
// printers do; "<unset>" when there are none.
func firstThree(vs []string) string {
	if len(vs) == 0 {
		return "<unset>"
	}
	if len(vs) > 3 {
		return strings.Join(vs[:3], ",") + fmt.Sprintf(" + %d more...", len(vs)-3)
	}
	return strings.Join(vs, ",")
}
