package zookeeper

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/leasehold/leasehold/backends"
)

// layoutVersion is the version of the node layout this adapter reads and
// writes under its prefix (see backends.Layout). Version 2 keeps a
// persistent pointer node per election where version 1 kept an
// ephemeral leader node: an elector of version 1 would delete a pointer.
const layoutVersion = 2

// newLayout returns the Layout of s's prefix.
func newLayout(s *store) *backends.Layout {
	return &backends.Layout{Store: "zookeeper", Prefix: s.opts.Prefix, Version: layoutVersion,
		Read: s.readLayout, Create: s.createLayout}
}

// layoutPath is the path of the layout marker: Prefix + "/~layout".
func (s *store) layoutPath() string { return s.opts.Prefix + "/" + backends.LayoutSegment }

// readLayout reads the layout marker on the Store's reader.
func (s *store) readLayout(ctx context.Context) ([]byte, bool, error) {
	data, err := readFor(s, ctx, func(l *link) ([]byte, error) {
		data, _, err := l.conn.Get(s.layoutPath())
		return data, err
	})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, false, nil
	case err != nil:
		return nil, false, classifyRead("zookeeper: read the layout marker", ctx, err)
	}
	return data, true, nil
}

// createLayout creates the layout marker, a persistent node with
// Options.ACL, on the Store's reader, or reads it if it exists. Prefix
// exists: NewSession made it before (checkRights).
func (s *store) createLayout(ctx context.Context, value []byte) ([]byte, error) {
	held, err := readFor(s, ctx, func(l *link) ([]byte, error) {
		_, err := l.conn.Create(s.layoutPath(), value, 0, s.opts.ACL)
		if !errors.Is(err, zk.ErrNodeExists) {
			return value, err
		}
		data, _, err := l.conn.Get(s.layoutPath())
		return data, err
	})
	if err != nil {
		return nil, classifyRead("zookeeper: write the layout marker", ctx, err)
	}
	return held, nil
}
