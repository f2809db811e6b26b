package etcd

import (
	"context"
	"errors"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/leasehold/leasehold/backends"
)

// TestClassify: each etcd error lands in its class, or in none. A token
// refused as lapsed or old is not permanent for a user with a password
// (clientv3 gets a new one; the server refused before acting: unavailable);
// with a fixed token it is.
func TestClassify(t *testing.T) {
	live := context.Background()
	canceled, cancel := context.WithCancel(live)
	cancel()
	// A refused watch: clientv3 keeps the cancel reason, the status's
	// text, as a plain error.
	watchDenied := errors.New(rpctypes.ErrGRPCPermissionDenied.Error())
	watchNoUser := errors.New(rpctypes.ErrGRPCUserEmpty.Error())
	watchLapsed := errors.New(rpctypes.ErrGRPCInvalidAuthToken.Error())
	cases := []struct {
		name       string
		ctx        context.Context
		err        error
		fixedToken bool
		want       error // nil: no class
	}{
		{"permission denied (wire)", live, rpctypes.ErrGRPCPermissionDenied, false, backends.ErrPermission},
		{"permission denied (client)", live, rpctypes.ErrPermissionDenied, false, backends.ErrPermission},
		{"permission denied (watch cancel)", live, watchDenied, false, backends.ErrPermission},
		{"user name is empty (watch cancel)", live, watchNoUser, false, backends.ErrPermission},
		{"another plain error", live, errors.New("etcdserver: permission denied, or so it says"), false, nil},
		{"authentication failed", live, rpctypes.ErrGRPCAuthFailed, false, backends.ErrPermission},
		{"no credentials: user name is empty", live, rpctypes.ErrGRPCUserEmpty, false, backends.ErrPermission},
		{"user not found", live, rpctypes.ErrGRPCUserNotFound, false, backends.ErrPermission},
		{"invalid auth management", live, rpctypes.ErrGRPCInvalidAuthMgmt, false, backends.ErrPermission},
		{"invalid token, password: clientv3 renews", live, rpctypes.ErrGRPCInvalidAuthToken, false, backends.ErrUnavailable},
		{"old auth revision, password: clientv3 renews", live, rpctypes.ErrGRPCAuthOldRevision, false, backends.ErrUnavailable},
		{"invalid token (watch cancel), password", live, watchLapsed, false, backends.ErrUnavailable},
		{"invalid token (watch cancel), fixed token", live, watchLapsed, true, backends.ErrPermission},
		{"invalid fixed token", live, rpctypes.ErrGRPCInvalidAuthToken, true, backends.ErrPermission},
		{"old auth revision, fixed token", live, rpctypes.ErrGRPCAuthOldRevision, true, backends.ErrPermission},
		{"lease not found", live, rpctypes.ErrGRPCLeaseNotFound, false, backends.ErrSessionExpired},
		{"no leader", live, rpctypes.ErrGRPCNoLeader, false, backends.ErrUnavailable},
		{"compacted", live, rpctypes.ErrGRPCCompacted, false, backends.ErrCompacted},
		{"timeout: maybe applied", live, rpctypes.ErrGRPCTimeout, false, nil},
		{"canceled first", canceled, rpctypes.ErrGRPCPermissionDenied, false, backends.ErrCanceled},
	}
	classes := []error{backends.ErrPermission, backends.ErrSessionExpired, backends.ErrUnavailable,
		backends.ErrCanceled, backends.ErrCompacted, backends.ErrKeyExists, backends.ErrNotFound}
	for _, c := range cases {
		got := classifyErr("op", "e", c.ctx, c.err, c.fixedToken)
		for _, class := range classes {
			if errors.Is(got, class) != (class == c.want) {
				t.Errorf("%s: %v: errors.Is(%v) = %v", c.name, got, class, class != c.want)
			}
		}
		if c.ctx.Err() == nil && !errors.Is(got, c.err) {
			t.Errorf("%s: %v does not wrap the store's error %v", c.name, got, c.err)
		}
	}
}

// TestHandshakeRefused: gRPC's reports of TLS handshakes that failed on a
// certificate, as gRPC words them, and others that did not.
func TestHandshakeRefused(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{`connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"`, true},
		{`connection error: desc = "transport: authentication handshake failed: x509: certificate is valid for other, not localhost"`, true},
		{`connection error: desc = "error reading server preface: remote error: tls: certificate required"`, true},
		{`connection error: desc = "transport: authentication handshake failed: remote error: tls: bad certificate"`, true},
		{`connection error: desc = "transport: authentication handshake failed: EOF"`, false},
		{`connection error: desc = "error reading server preface: remote error: tls: internal error"`, false},
		{`connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`, false},
		{`connection error: desc = "error reading server preface: EOF"`, false},
	} {
		if got := handshakeRefused(tc.msg); got != tc.want {
			t.Errorf("handshakeRefused(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}
