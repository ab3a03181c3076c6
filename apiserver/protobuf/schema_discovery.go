package protobuf

// discoveryMessages are discovery/v1 generated.proto's EndpointSlice
// messages; the JSON names are the Go json tags of api/discovery.
func discoveryMessages() map[string]fields {
	return map[string]fields{
		"discovery.EndpointSlice": {
			1: objectMeta(), 2: required(msgs("endpoints", "discovery.Endpoint")),
			3: msgs("ports", "discovery.EndpointPort"), 4: str("addressType"),
		},
		"discovery.Endpoint": {
			1: strs("addresses"), 2: msg("conditions", "discovery.EndpointConditions"), 3: strp("hostname"),
			4: msg("targetRef", "core.ObjectReference"), 5: mapStr("deprecatedTopology"), 6: strp("nodeName"),
			7: strp("zone"), 8: msg("hints", "discovery.EndpointHints"),
		},
		"discovery.EndpointConditions": {1: blnp("ready"), 2: blnp("serving"), 3: blnp("terminating")},
		"discovery.EndpointHints": {
			1: msgs("forZones", "discovery.ForZone"), 2: msgs("forNodes", "discovery.ForNode"),
		},
		"discovery.ForZone":      {1: str("name")},
		"discovery.ForNode":      {1: str("name")},
		"discovery.EndpointPort": {1: strp("name"), 2: strp("protocol"), 3: i32p("port"), 4: strp("appProtocol")},
	}
}
