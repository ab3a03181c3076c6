// Package record records core/v1 Events about API objects, the way
// Kubernetes components do (client-go's tools/record): a Recorder is what a
// component calls ("Pulled", "Scheduled", "ScalingReplicaSet"), a Writer
// is the implementation that writes the Events to the API server through
// a client.Client.
//
// The pipeline of one Event:
//
//	Recorder.Event(obj, type, reason, message)        caller's goroutine, never blocks
//	  ─▶ reference   involvedObject: apiVersion, kind, namespace, name, uid,
//	                 resourceVersion, fieldPath (WithFieldPath)
//	  ─▶ rate limit  token bucket per source and involved object
//	  ─▶ correlate   same object + type + reason + message + source within
//	                 the window: count+1 of the Event already written
//	  ─▶ buffer      bounded, one shard per worker (by involved object, so
//	                 an object's Events are written in order); full: dropped
//	  ─▶ worker      POST a new Event, or PATCH count and lastTimestamp of
//	                 the correlated one (POST again if it is gone)
//
// The package is named record, not events, because client.Event already
// names a watch event, and because it owns the act of recording (the
// recorder, its correlator and its writer) rather than the Event kind,
// which api/core owns.
//
// Nothing here is global: a process makes one Writer per client and hands
// Recorders (Writer.WithSource) to its components; the Writer's owner runs
// it (Run) and it flushes what it holds when Run's context ends.
package record
