package etcd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	"github.com/leasehold/leasehold/backends"
	"github.com/leasehold/leasehold/internal/errclass"
)

// classify wraps an etcd client error of s with the backends class it
// belongs to (see classifyErr), or with backends.ErrTLS if the client's
// connection failed its TLS handshake on a certificate (see tlsFailure).
func (s *store) classify(op, election string, ctx context.Context, err error) error {
	if terr := s.tlsFailure(err); terr != nil {
		return fmt.Errorf("%s: %w: %w", opName(op, election), backends.ErrTLS, terr)
	}
	return classifyErr(op, election, ctx, err, s.c.Token != "")
}

// tlsFailure returns, for a call that failed with err while the client's
// connection is in transient failure, the connection's failure if it is a
// TLS handshake that failed on a certificate; else nil. clientv3 waits for
// a ready connection until the call's context ends and then returns only
// the context's error, and gRPC keeps a connection's failure as text in a
// status: so a call that fails at once (gRPC does not wait for readiness)
// asks for it, and the text of gRPC's status names it. That call fails in
// the client, and sends nothing.
func (s *store) tlsFailure(err error) error {
	conn := s.c.ActiveConnection()
	if err == nil || conn == nil || conn.GetState() != connectivity.TransientFailure {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.c.Ctx(), time.Second)
	defer cancel()
	_, perr := pb.NewMaintenanceClient(conn).Status(ctx, &pb.StatusRequest{}, grpc.WaitForReady(false))
	msg := status.Convert(perr).Message()
	if perr == nil || !handshakeRefused(msg) {
		return nil
	}
	return errors.New(msg)
}

// handshakeRefused reports whether msg, the message of a gRPC status, is
// gRPC's report of a TLS handshake that failed on a certificate: Go's
// verification of the server's certificate ("authentication handshake
// failed: tls: failed to verify certificate: x509: ..."), or an alert with
// which the server refused the client's, which with TLS 1.3 comes with the
// first read ("error reading server preface: remote error: tls:
// certificate required"; see backends.CertificateAlert).
func handshakeRefused(msg string) bool {
	const failed, alert = "authentication handshake failed: ", "remote error: "
	if i := strings.Index(msg, failed); i >= 0 {
		rest := msg[i+len(failed):]
		if strings.HasPrefix(rest, "tls: failed to verify certificate") || strings.HasPrefix(rest, "x509: ") {
			return true
		}
	}
	i := strings.Index(msg, alert)
	return i >= 0 && backends.CertificateAlert(msg[i+len(alert):])
}

// opName names an operation for an error: "etcd: op" or, for an
// election's, `etcd: op "election"`.
func opName(op, election string) string {
	if election == "" {
		return "etcd: " + op
	}
	return fmt.Sprintf("etcd: %s %q", op, election)
}

// classifyErr wraps an etcd client error with the backends class it
// belongs to. Only errors the server returns before acting count as
// unavailable; a transport failure may come after the request was applied,
// so it is left unclassified (outcome unknown). fixedToken says the client
// authenticates with a token it was given (clientv3.Config.Token), which
// clientv3 cannot renew.
func classifyErr(op, election string, ctx context.Context, err error, fixedToken bool) error {
	return errclass.Wrap(opName(op, election), ctx, err,
		etcdClass(backends.ErrCompacted, rpctypes.ErrCompacted, rpctypes.ErrGRPCCompacted),
		etcdClass(backends.ErrSessionExpired, rpctypes.ErrLeaseNotFound),
		etcdClass(backends.ErrUnavailable, rpctypes.ErrNoLeader, rpctypes.ErrTooManyRequests, rpctypes.ErrNotCapable),
		errclass.Class{Err: backends.ErrPermission, Is: func(err error) bool { return denied(err, fixedToken) }},
		// refused before acting; the next call has a new token
		errclass.Class{Err: backends.ErrUnavailable, Is: staleToken})
}

// etcdClass is errclass.Of for etcd errors, compared by errorsIs.
func etcdClass(class error, targets ...error) errclass.Class {
	return errclass.Class{Err: class, Is: func(err error) bool { return errorsIsAny(err, targets...) }}
}

// permanentAuth are the etcd errors that no retry can cure: the user lacks
// the rights (permission denied), the credentials are wrong (authentication
// failed, user not found), or the client sent none to a server with auth
// on (user name is empty: clientv3 itself re-authenticates when it has a
// user name and password, so only a client without them sees it).
var permanentAuth = []error{rpctypes.ErrPermissionDenied, rpctypes.ErrAuthFailed,
	rpctypes.ErrUserEmpty, rpctypes.ErrUserNotFound, rpctypes.ErrInvalidAuthMgmt,
	rpctypes.ErrRoleNotGranted, rpctypes.ErrPermissionNotGranted}

// denied reports whether err is a permanent refusal for lack of rights or
// credentials. An invalid auth token or an old auth revision (staleToken)
// is not: with a user name and password, clientv3 fetches a new token and
// retries a unary call by itself, and a watch so refused leaves its stream
// for a new one, with a new token (see streams); such an error that still
// reaches the adapter is unavailable. With a fixed token (fixedToken)
// nothing can renew it, and they are permanent.
func denied(err error, fixedToken bool) bool {
	return errorsIsAny(err, permanentAuth...) || fixedToken && staleToken(err)
}

// errorsIs compares etcd errors, which cross the wire as gRPC statuses, by
// their etcd error type. A watch the server refuses (a user without read
// rights) ends with the status's text only: clientv3 keeps its cancel
// reason as a plain error, which is compared with the text of target's
// status.
func errorsIs(err, target error) bool {
	if errors.Is(err, target) {
		return true
	}
	if errors.Is(rpctypes.Error(err), rpctypes.Error(target)) {
		return true
	}
	ee, ok := target.(rpctypes.EtcdError)
	return ok && err != nil && err.Error() == status.Error(ee.Code(), ee.Error()).Error()
}

// staleToken reports whether err is etcd's refusal of a token it no
// longer accepts: lapsed or unknown, or older than the auth revision.
func staleToken(err error) bool {
	return errorsIsAny(err, rpctypes.ErrInvalidAuthToken, rpctypes.ErrAuthOldRevision)
}

// errorsIsAny reports whether errorsIs(err, t) for one of targets.
func errorsIsAny(err error, targets ...error) bool {
	return slices.ContainsFunc(targets, func(t error) bool { return errorsIs(err, t) })
}
