// Package etcd is store.Interface on an etcd v3 cluster: the distributed
// backend, for orkit clusters with several API servers.
package etcd
