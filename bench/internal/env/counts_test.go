package env

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestEtcdCountsRenewals: etcd's counters are parsed into requests,
// notifications and renewals, a stream's end not counted as a request:
// here 3 keep-alives on a stream (one ended) and 2 KeepAliveOnce streams
// are 5 renewals, beside 7 unary requests.
func TestEtcdCountsRenewals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for _, l := range []string{
			`grpc_server_msg_received_total{grpc_method="Txn",grpc_service="etcdserverpb.KV",grpc_type="unary"} 7`,
			`grpc_server_msg_received_total{grpc_method="LeaseKeepAlive",grpc_service="etcdserverpb.Lease",grpc_type="bidi_stream"} 8`,
			`grpc_server_handled_total{grpc_code="Canceled",grpc_method="LeaseKeepAlive",grpc_service="etcdserverpb.Lease",grpc_type="bidi_stream"} 3`,
			`grpc_server_msg_received_total{grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"} 2`,
			`grpc_server_msg_sent_total{grpc_method="Watch",grpc_service="etcdserverpb.Watch",grpc_type="bidi_stream"} 11`,
		} {
			fmt.Fprintln(w, l)
		}
	}))
	defer srv.Close()
	c, err := etcdCounts(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Requests: 14, Notifications: 11, Renewals: 5}); c != want {
		t.Fatalf("etcdCounts = %+v, want %+v", c, want)
	}
	if c.Work() != 9 {
		t.Fatalf("Work = %v, want 9: 7 unary, 2 watch creations", c.Work())
	}
}
