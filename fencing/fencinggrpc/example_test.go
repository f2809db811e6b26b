package fencinggrpc_test

import (
	"context"
	"fmt"
	"log"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

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

// A server fences every unary call with one Guard; a leader's client sends
// its token with each call.
func ExampleUnaryServerInterceptor() {
	var g fencing.Guard // the one Guard of the resource this server fences
	srv := grpc.NewServer(grpc.UnaryInterceptor(fencinggrpc.UnaryServerInterceptor(&g)))
	healthpb.RegisterHealthServer(srv, health.NewServer()) // stands in for your service
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go srv.Serve(lis)
	defer srv.Stop()

	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)
	call := func(t fencing.Token) {
		ctx := fencinggrpc.AppendToOutgoingContext(context.Background(), t)
		_, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
		fmt.Println(t, status.Code(err))
	}
	call(7) // the leader
	call(8) // its successor
	call(7) // the deposed leader, late
	// Output:
	// 7 OK
	// 8 OK
	// 7 FailedPrecondition
}
