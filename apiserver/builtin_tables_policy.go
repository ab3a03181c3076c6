package apiserver

import (
	"github.com/orkit/orkit/api/meta"
	"github.com/orkit/orkit/api/policy"
)

// pdbTable holds the columns kubectl shows for PodDisruptionBudgets, as
// kube-apiserver's printer defines them (NAME MIN AVAILABLE MAX
// UNAVAILABLE ALLOWED DISRUPTIONS AGE); an unset bound shows N/A.
var pdbTable = &TableConvertor{
	Columns: []TableColumn{
		col("Min Available", "string", "The minimum number of pods that must be available.", 0),
		col("Max Unavailable", "string", "The maximum number of pods that may be unavailable.", 0),
		col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time.", 0),
	},
	Cells: func(obj meta.Object) []any {
		pdb := obj.(*policy.PodDisruptionBudget)
		bound := func(v *meta.IntOrString) string {
			if v == nil {
				return "N/A"
			}
			return v.String()
		}
		return []any{bound(pdb.Spec.MinAvailable), bound(pdb.Spec.MaxUnavailable), int64(pdb.Status.DisruptionsAllowed)}
	},
}
