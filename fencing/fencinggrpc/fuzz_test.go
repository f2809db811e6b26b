package fencinggrpc_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/fencing/fencinggrpc"
)

// FuzzFromIncomingContext: for any metadata values of the token key
// (joined by '\x00' in the input), FromIncomingContext never panics; it
// accepts exactly one value that fencing.ParseToken accepts, and its error
// quotes at most 40 bytes of input however many and long the values are.
func FuzzFromIncomingContext(f *testing.F) {
	for _, s := range []string{"7", "", "0", "3\x004", strings.Repeat("1\x00", 100), strings.Repeat("y", 500), "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		vals := strings.Split(joined, "\x00")
		md := metadata.MD{}
		md.Append(fencinggrpc.MetadataKey, vals...)
		tok, err := fencinggrpc.FromIncomingContext(metadata.NewIncomingContext(context.Background(), md))
		if len(vals) == 1 {
			want, werr := fencing.ParseToken(vals[0])
			if tok != want || (err == nil) != (werr == nil) {
				t.Fatalf("FromIncomingContext(%q) = %d, %v; ParseToken = %d, %v", vals, tok, err, want, werr)
			}
		} else if err == nil {
			t.Fatalf("FromIncomingContext(%d values) = %d, want an error", len(vals), tok)
		}
		if err != nil && (errors.Unwrap(err) != nil || len(err.Error()) > 100+4*40) {
			t.Fatalf("FromIncomingContext(%q): error wraps another or is %d bytes: %v", vals, len(err.Error()), err)
		}
	})
}
