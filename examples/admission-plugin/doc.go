// Command admission-plugin shows the three ways to put your own policy
// into the create path of orkit's API server:
//
//   - RequireTeam, a validating plugin: pods must carry a "team" label, or
//     the request is refused with 403 Forbidden and a message saying why;
//   - AdmittedBy, a mutating plugin: every new pod gets the annotation
//     example.orkit.io/admitted-by naming the user who created it;
//   - Sidecar, an initializer named sidecar.example.orkit.io: pods that
//     expose container port 80 get a sidecar container injected after they
//     are stored and before anyone else sees them. An
//     InitializerConfiguration for pods puts it on every new pod's pending
//     list; an admission.Runner in the same process does the work.
//
// The plugins join the built-in admission chain (controlplane.DefaultAdmission)
// through controlplane.Config.Admission. The program starts the control
// plane with them and waits for Ctrl-C:
//
//	go run ./examples/admission-plugin --data-dir /tmp/admission
package main
