package zookeeper

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/go-zookeeper/zk"
)

// defaultACL is the default of Options.ACL, as its doc states it. With
// credentials, the "auth" scheme is expanded by the server into the
// identities the connection authenticated as, at create time.
func defaultACL(auth []Auth, noWorldRead bool) []zk.ACL {
	if len(auth) == 0 {
		return zk.WorldACL(zk.PermAll)
	}
	acl := zk.AuthACL(zk.PermAll)
	if !noWorldRead {
		acl = append(acl, zk.WorldACL(zk.PermRead)...)
	}
	return acl
}

// identity names the credentials for errors and logs, never with a
// secret: "digest:alice" for digest credentials "alice:password", the
// scheme alone for others, "no credentials (world:anyone)" for none.
func identity(auth []Auth) string {
	if len(auth) == 0 {
		return "no credentials (world:anyone)"
	}
	var ids []string
	for _, a := range auth {
		if a.Scheme == "digest" {
			user, _, _ := strings.Cut(string(a.Credentials), ":")
			ids = append(ids, "digest:"+user)
			continue
		}
		ids = append(ids, a.Scheme)
	}
	return strings.Join(ids, ", ")
}

// warnOpenPrefix, on link l, logs a warning on Options.Logger if Prefix exists with an
// ACL that lets anyone (world:anyone) create or delete its children, as
// one made by an older version or another tool may: ZooKeeper lets
// whoever may delete a node's children delete any of them, so the leader
// nodes under it are not protected, whatever their own ACL. Nodes that
// exist keep their ACL; the Store does not change it.
func (s *store) warnOpenPrefix(l *link) {
	acl, _, err := l.conn.GetACL(s.opts.Prefix)
	if err != nil {
		return // absent (made with the ACL later) or unreadable: nothing to say
	}
	for _, a := range acl {
		if a.Scheme == "world" && a.ID == "anyone" && a.Perms&(zk.PermCreate|zk.PermDelete) != 0 {
			s.opts.logger().Warn("zookeeper: Prefix lets anyone create or delete its children, so any client can "+
				"delete pointer nodes whatever their ACL; set its ACL, e.g. with zkCli setAcl",
				"prefix", s.opts.Prefix, "acl", fmt.Sprintf("world:anyone:%s", perms(a.Perms)))
			return
		}
	}
}

// perms renders ZooKeeper permissions as zkCli does, e.g. "cdrwa".
func perms(p int32) string {
	var b strings.Builder
	for _, f := range []struct {
		bit int32
		c   byte
	}{{zk.PermCreate, 'c'}, {zk.PermDelete, 'd'}, {zk.PermRead, 'r'}, {zk.PermWrite, 'w'}, {zk.PermAdmin, 'a'}} {
		if p&f.bit != 0 {
			b.WriteByte(f.c)
		}
	}
	return b.String()
}

// probeName is the child of Prefix the rights probe pretends to create and
// delete: node names of elections never begin with '~'.
const probeName = "~probe"

// checkRights tells whether the connection's credentials may do what a
// candidate does under prefix: create and delete its children. ZooKeeper
// accepts any digest when credentials are added; a wrong password shows
// only when a node's ACL does not match, so this is where it shows. It
// sends one multi that creates and deletes a child of prefix and then
// checks prefix at a version it never has: the server checks each op's
// ACL before the version check fails, and the failed multi commits
// nothing. If prefix is missing it is created first (with its missing
// parents), with acl. The error wraps zk.ErrNoAuth (or zk.ErrInvalidACL,
// for an ACL the server refuses) and names prefix and the identity.
func checkRights(conn *zk.Conn, prefix string, acl []zk.ACL, auth []Auth) error {
	err := probe(conn, prefix, acl)
	if errors.Is(err, zk.ErrNoNode) {
		if err = makeParents(conn, prefix+"/"+probeName, acl); err != nil {
			return rightsError(prefix, auth, err)
		}
		err = probe(conn, prefix, acl)
	}
	return rightsError(prefix, auth, err)
}

// probe sends the rights probe; nil if the rights are there.
func probe(conn *zk.Conn, prefix string, acl []zk.ACL) error {
	p := prefix + "/" + probeName
	_, err := multi(conn, &zk.CreateRequest{Path: p, Acl: acl, Flags: zk.FlagEphemeral},
		&zk.DeleteRequest{Path: p, Version: -1},
		&zk.CheckVersionRequest{Path: prefix, Version: math.MaxInt32})
	switch {
	case failedAt(err) == prefix && errors.Is(err, zk.ErrBadVersion):
		return nil // every op before the check passed its ACL
	case err == nil:
		return fmt.Errorf("the rights probe on %q committed: its version check passed", prefix)
	}
	return err
}

// rightsError explains a permission error of checkRights.
func rightsError(prefix string, auth []Auth, err error) error {
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("%s may not create and delete nodes under %q: its ACL (or its parent's) does "+
			"not grant them (with digest credentials, a wrong password is one cause): %w", identity(auth), prefix, err)
	case errors.Is(err, zk.ErrInvalidACL):
		return fmt.Errorf("the server refuses the ACL for nodes under %q (Options.ACL): %w", prefix, err)
	}
	return err
}
