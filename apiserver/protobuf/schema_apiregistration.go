package protobuf

// apiregistrationMessages are apiregistration/v1 generated.proto's
// APIService messages (kube-aggregator's clientset sends and asks for
// protobuf); the JSON names are the Go json tags of api/apiregistration.
func apiregistrationMessages() map[string]fields {
	return map[string]fields{
		"apiregistration.APIService": {
			1: objectMeta(), 2: msg("spec", "apiregistration.APIServiceSpec"), 3: msg("status", "apiregistration.APIServiceStatus"),
		},
		"apiregistration.APIServiceSpec": {
			1: msg("service", "apiregistration.ServiceReference"), 2: str("group"), 3: str("version"),
			4: bln("insecureSkipTLSVerify"), 5: byt("caBundle"), 7: i32p("groupPriorityMinimum"), 8: i32p("versionPriority"),
		},
		"apiregistration.ServiceReference": {1: str("namespace"), 2: str("name"), 3: i32p("port")},
		"apiregistration.APIServiceStatus": {1: msgs("conditions", "apiregistration.APIServiceCondition")},
		"apiregistration.APIServiceCondition": {
			1: strp("type"), 2: strp("status"), 3: timeField("lastTransitionTime"), 4: str("reason"), 5: str("message"),
		},
	}
}
