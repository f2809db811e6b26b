// Package containers starts etcd, ZooKeeper and Consul servers in Docker
// containers with testcontainers-go, one server or a cluster of three, and
// waits until they serve. The project's suites (integration/stores) and
// leaseholdtest share it, each with its own policy on a failure: its
// functions return errors and never end the test. Every container and
// network it starts is removed when the test ends.
package containers
