package fencinggrpc_test

import (
	"context"
	"fmt"

	"google.golang.org/grpc/metadata"

	"github.com/leasehold/leasehold/fencing"
	"github.com/leasehold/leasehold/fencing/fencinggrpc"
)

func ExampleAppendToOutgoingContext() {
	// A leader attaches its token to every call it makes.
	ctx := fencinggrpc.AppendToOutgoingContext(context.Background(), fencing.Token(7))

	md, _ := metadata.FromOutgoingContext(ctx)
	fmt.Println(md.Get(fencinggrpc.MetadataKey))
	// Output: [7]
}
