package storeurl

import (
	"fmt"
	"net/url"
	"strings"
)

// redactedPassword stands for a password in a URL shown to people.
const redactedPassword = "xxxxx"

// splitUserinfo cuts raw at its user info: the text between the "://"
// that follows a scheme and the last '@'. The last '@' is taken so that a
// password containing '@', '/', '?' or '#' typed without percent-encoding
// still ends up whole in the user info (and is redacted), never in the
// host or path. No valid host, prefix or query value contains '@'. ok is
// false when raw has no scheme or no user info.
func splitUserinfo(raw string) (before, info, after string, ok bool) {
	start, ok := schemeEnd(raw)
	if !ok {
		return raw, "", "", false
	}
	at := strings.LastIndex(raw, "@")
	if at < start {
		return raw, "", "", false
	}
	return raw[:start], raw[start:at], raw[at:], true
}

// schemeEnd returns the index just past the "scheme://" raw starts with.
func schemeEnd(raw string) (int, bool) {
	i := strings.Index(raw, "://")
	if i <= 0 {
		return 0, false
	}
	for j, c := range raw[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return 0, false
		}
	}
	return i + len("://"), true
}

// redact returns raw with the password of its user info, if any, replaced
// by "xxxxx". It works on text that is not a valid URL too, so that errors
// about such text can quote it.
func redact(raw string) string {
	before, info, after, ok := splitUserinfo(raw)
	if !ok {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			// No "scheme://": whatever precedes '@' may hold a password.
			return redactedPassword + raw[i:]
		}
		return raw
	}
	user, _, hasPassword := strings.Cut(info, ":")
	if !hasPassword {
		return raw
	}
	return before + user + ":" + redactedPassword + after
}

// parseUserinfo decodes "user[:password]" (percent-encoded, as in any
// URL). Its errors never quote the password.
func parseUserinfo(info string) (user, password string, hasPassword bool, err error) {
	rawUser, rawPassword, hasPassword := strings.Cut(info, ":")
	if user, err = url.PathUnescape(rawUser); err != nil {
		return "", "", false, fmt.Errorf("user %q is not valid percent-encoding", rawUser)
	}
	if password, err = url.PathUnescape(rawPassword); err != nil {
		return "", "", false, fmt.Errorf("the password is not valid percent-encoding: write %% as %%25, or keep the password out of the URL (--password-file)")
	}
	if user == "" {
		return "", "", false, fmt.Errorf("user info without a user before '@': want user[:password]@host")
	}
	return user, password, hasPassword, nil
}

// credentials moves the URL's user info into opts as the scheme takes it,
// and checks that each credential is given once and only to a store that
// takes it. For ZooKeeper, the user and password become opts.ZKDigest.
func (p *URL) credentials(opts Options) (Options, error) {
	if err := p.checkApplies(opts); err != nil {
		return opts, err
	}
	if p.kind == consulKind {
		return opts, nil
	}
	opts, err := p.mergeUser(opts)
	if err != nil {
		return opts, err
	}
	if opts.Password != "" && opts.Username == "" {
		return opts, p.invalid("a password without a user: give the user in the URL (%s://user@host/...) or in Options.Username (--user)", p.Scheme)
	}
	if p.kind == zkKind {
		d, err := p.zkDigest(opts)
		opts.ZKDigest, opts.Username, opts.Password = d, "", ""
		return opts, err
	}
	return opts, nil
}

// checkApplies refuses credentials the URL's store does not take.
func (p *URL) checkApplies(opts Options) error {
	switch {
	case p.kind == consulKind && p.Username != "":
		return p.invalid("Consul takes an ACL token, not a user: drop the user info and give the token in Options.Token (--token, --token-file or CONSUL_HTTP_TOKEN)")
	case p.kind == consulKind && (opts.Username != "" || opts.Password != "" || opts.ZKDigest != ""):
		return p.invalid("Consul takes an ACL token (Options.Token: --token, --token-file), not a user, password or ZooKeeper digest")
	case p.kind != consulKind && opts.Token != "":
		return p.invalid("an ACL token (Options.Token: --token, --token-file) is for consul URLs: %s takes a user and password", p.Scheme)
	case p.kind == etcdKind && opts.ZKDigest != "":
		return p.invalid("a ZooKeeper digest (Options.ZKDigest: --zk-digest) is for zk URLs: etcd takes a user and password")
	}
	return nil
}

// mergeUser fills opts.Username and opts.Password from the URL, refusing a
// user or password given twice.
func (p *URL) mergeUser(opts Options) (Options, error) {
	if p.Username != "" && opts.Username != "" {
		return opts, p.invalid("user given twice, in the URL and in Options.Username (--user): give it once")
	}
	if p.hasPassword && opts.Password != "" {
		return opts, p.invalid("password given twice, in the URL and in Options.Password (--user, --password-file or LEASEHOLD_PASSWORD): give it once")
	}
	if p.Username != "" {
		opts.Username = p.Username
	}
	if p.hasPassword {
		opts.Password = p.Password
	}
	return opts, nil
}

// zkDigest returns the ZooKeeper digest credentials: opts.ZKDigest, or
// Username:Password.
func (p *URL) zkDigest(opts Options) (string, error) {
	if opts.Username == "" {
		return opts.ZKDigest, nil
	}
	if opts.ZKDigest != "" {
		return "", p.invalid("a user (in the URL or Options.Username) and Options.ZKDigest (--zk-digest) both given: give the credentials once")
	}
	if opts.Password == "" {
		return "", p.invalid("user %q has no password: digest authentication needs user:password", opts.Username)
	}
	return opts.Username + ":" + opts.Password, nil
}
