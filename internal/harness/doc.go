// Package harness holds what the store harnesses (etcd/etcdtest,
// zookeeper/zktest, consul/consultest) share with the suites that use them
// (backends/backendtest, lease/leasetest): Proxy and Link, a client's
// cuttable way to a store, and AuthCase. It lives apart from the suites so
// that leaseholdtest, which imports the harnesses, builds none of the
// suites; the suites re-export these names as aliases.
package harness
