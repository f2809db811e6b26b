package shard

// MaxHandingOver is maxHandingOver, for the tests.
const MaxHandingOver = maxHandingOver
