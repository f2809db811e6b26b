// Package integration runs the backend conformance suite and the elector
// suite against real etcd, ZooKeeper and Consul servers started in
// containers, as single nodes and as 3-node clusters. Run it with
// `make test`; it needs Docker and the images `make images` provides.
package integration
