// Package fencinggrpc carries fencing tokens in gRPC metadata and checks them
// in server interceptors backed by a [fencing.Guard].
//
// A client attaches its token with [AppendToOutgoingContext]. A server
// installs [UnaryServerInterceptor] (and, if it has streaming methods,
// [StreamServerInterceptor]) built on the one Guard that fences the resource.
// The guarantees and limits are those of package fencing.
package fencinggrpc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/leasehold/leasehold/fencing"
)

// MetadataKey is the gRPC metadata key that carries a fencing token, in
// decimal.
const MetadataKey = "fencing-token"

// AppendToOutgoingContext returns a copy of ctx whose outgoing metadata
// carries t under [MetadataKey]. Any token ctx already carries is replaced,
// not added to, so a request never carries two tokens. Other outgoing
// metadata is kept.
func AppendToOutgoingContext(ctx context.Context, t fencing.Token) context.Context {
	md, ok := metadata.FromOutgoingContext(ctx) // a copy
	if !ok {
		md = metadata.MD{}
	}
	md.Set(MetadataKey, t.String())
	return metadata.NewOutgoingContext(ctx, md)
}

// FromIncomingContext returns the token in the incoming metadata of ctx. It
// returns [fencing.ErrNoToken] itself if there is none. It returns an error
// that wraps no other error if the token is malformed (see
// [fencing.ParseToken]) or present more than once.
func FromIncomingContext(ctx context.Context) (fencing.Token, error) {
	vals := metadata.ValueFromIncomingContext(ctx, MetadataKey)
	switch len(vals) {
	case 0:
		return 0, fencing.ErrNoToken
	case 1:
		return fencing.ParseToken(vals[0])
	default:
		return 0, fmt.Errorf("fencing: invalid token: %d %s metadata values %s, want one",
			len(vals), MetadataKey, quote(strings.Join(vals, ", ")))
	}
}

// maxQuoted bounds how much of the metadata values an error quotes, as
// package fencing bounds a header's: a valid token has at most 20 digits.
const maxQuoted = 40

// quote returns s quoted for an error message, shortened if it is long.
func quote(s string) string {
	if len(s) > maxQuoted {
		return strconv.Quote(s[:maxQuoted]) + "..."
	}
	return strconv.Quote(s)
}

// UnaryServerInterceptor returns an interceptor that fences unary calls with
// g. It reads the token with [FromIncomingContext] and runs the handler
// inside g.Do, so handlers run one at a time and no call carrying a lower
// token can run between the check and the handler. A missing or malformed
// token fails with codes.InvalidArgument and a stale one with
// codes.FailedPrecondition; in both cases the handler does not run and the
// status message names the token values. A handler must not call Admit or
// Do on g, which would deadlock.
func UnaryServerInterceptor(g *fencing.Guard) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		t, err := FromIncomingContext(ctx)
		if err != nil {
			return nil, toStatus(err)
		}
		var resp any
		var herr error
		if err := g.Do(t, func() error {
			resp, herr = handler(ctx, req)
			return nil
		}); err != nil {
			return nil, toStatus(err)
		}
		return resp, herr
	}
}

// StreamServerInterceptor returns an interceptor that admits the token of
// each stream with g.Admit when the stream opens, failing it with the same
// codes as [UnaryServerInterceptor] and without calling the handler.
//
// Unlike the unary interceptor it does not hold the guard while the handler
// runs, since a stream can last indefinitely and would block every other
// call. It therefore only keeps streams with stale tokens from starting. A
// streaming handler that writes to the fenced resource must run each write
// under g.Do itself, with the token from FromIncomingContext(ss.Context()).
func StreamServerInterceptor(g *fencing.Guard) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		t, err := FromIncomingContext(ss.Context())
		if err != nil {
			return toStatus(err)
		}
		if err := g.Admit(t); err != nil {
			return toStatus(err)
		}
		return handler(srv, ss)
	}
}

// toStatus maps a token error to a gRPC status error.
func toStatus(err error) error {
	switch {
	case errors.Is(err, fencing.ErrStale):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, fencing.ErrNoToken):
		return status.Error(codes.InvalidArgument, "fencing: missing "+MetadataKey+" metadata")
	default:
		return status.Error(codes.InvalidArgument, err.Error())
	}
}
