package zktest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// closeSession attaches to a session with its ID and password and closes
// it, on the first server that answers. Attaching closes the session's
// own connection, and the Store dials again at once, which may take the
// session back before the server answers: the server then closes this
// connection (EOF), and closeSession attaches again, up to 5 times.
func closeSession(ctx context.Context, servers []string, tc *tls.Config, id int64, password []byte) error {
	var errs []error
	for range 5 {
		for _, srv := range servers {
			err := closeSessionAt(ctx, srv, tc, id, password)
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
		if !errors.Is(errs[len(errs)-1], io.EOF) || ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("zktest: expire session %x: %w", id, errors.Join(errs...))
}

func closeSessionAt(ctx context.Context, server string, tc *tls.Config, id int64, password []byte) error {
	conn, err := dial(ctx, server, tc)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	if _, err := conn.Write(appendConnectRequest(nil, id, password, 0)); err != nil {
		return err
	}
	frame, err := readFrame(conn)
	if err != nil {
		return fmt.Errorf("%s: connect: %w", server, err)
	}
	r, err := parseConnectResponse(frame)
	if err != nil || r.sessionID == 0 { // already expired
		return err
	}
	if _, err := conn.Write(appendCloseRequest(nil, 1)); err != nil {
		return err
	}
	if frame, err = readFrame(conn); err != nil {
		return fmt.Errorf("%s: close session: %w", server, err)
	}
	code, err := replyErr(frame)
	if err == nil && code != 0 {
		err = fmt.Errorf("%s: close session: ZooKeeper error code %d", server, code)
	}
	return err
}

// dial connects to addr, over TLS with tc if it is not nil, within 5 s.
func dial(ctx context.Context, addr string, tc *tls.Config) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if tc != nil {
		return (&tls.Dialer{Config: tc}).DialContext(ctx, "tcp", addr)
	}
	return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
}
