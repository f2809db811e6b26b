package backends

import "errors"

// Errors an adapter classifies store failures into. Adapters wrap them with
// context and the store's own error; callers test with errors.Is.
var (
	// ErrKeyExists: a create found the leader key held by another session.
	ErrKeyExists = errors.New("leader key exists")
	// ErrNotFound: the key is absent, or holds a token other than the one
	// given.
	ErrNotFound = errors.New("leader key not found")
	// ErrSessionExpired: the session no longer exists in the store.
	ErrSessionExpired = errors.New("session expired")
	// ErrCompacted: the store no longer has history at the revision asked.
	ErrCompacted = errors.New("revision compacted")
	// ErrUnavailable: the store could not be reached or refused the request,
	// and the operation surely did not happen. An error whose outcome is
	// unknown, such as a timeout after the request was sent, must not wrap
	// it.
	ErrUnavailable = errors.New("store unavailable")
	// ErrCanceled: the caller's context ended first. Adapters wrap the
	// context's own error too, so errors.Is(err, context.Canceled) and
	// errors.Is(err, context.DeadlineExceeded) also work.
	ErrCanceled = errors.New("canceled")
	// ErrNotLeader: a guarded write (Driver.GuardedPut) found the election's
	// leader key absent or holding another token, and wrote nothing: the
	// leadership the token names has ended, or never was.
	ErrNotLeader = errors.New("token does not hold the leader key")
	// ErrPermission: the store refused the request for lack of rights or
	// credentials (etcd: permission denied or authentication failed;
	// ZooKeeper: NOAUTH or AUTH_FAILED; Consul: ACL not found or permission
	// denied). It is permanent: package lease does not retry it and fails
	// the call at once. Adapters keep the store's own words in the message.
	ErrPermission = errors.New("permission denied by the store")
	// ErrTLS: the TLS handshake with the store failed its certificate
	// verification: the client did not trust the server's certificate
	// (an unknown authority, an expired certificate, a host name it does
	// not name) or the server refused the client's certificate (a TLS
	// alert such as "bad certificate" or "certificate required"). Like
	// ErrPermission it is permanent: no retry cures it, and package lease
	// fails the call at once. Adapters keep the TLS error in the message
	// and, where the client library hands it over as an error value (not
	// only as text, as gRPC does for etcd), in the chain, so errors.As
	// finds the *tls.CertificateVerificationError or the x509 error.
	ErrTLS = errors.New("TLS certificate verification failed")
	// ErrLayout: the store's prefix is laid out by another version of
	// leasehold: its layout marker (see Layout) holds a version other than
	// the one the adapter reads and writes. The message names the prefix
	// and both versions. Like ErrPermission it is permanent: package lease
	// fails the call at once.
	ErrLayout = errors.New("store prefix laid out by another version of leasehold")
	// ErrNoCandidate: an End named a target that does not stand in the
	// election (see Target), and changed nothing.
	ErrNoCandidate = errors.New("no such candidate")
)
