package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/leasehold/leasehold/storeurl"
)

// storeOptions gathers the TLS files and credentials from the flags, the
// secret files and, for what neither gives, the environment. Secrets come
// from one place each: a password in both --user and --password-file, or a
// token in both --token and --token-file, is an error (storeurl refuses a
// password given both in the URL and here).
func (c *common) storeOptions() (storeurl.Options, error) {
	p, err := storeurl.Parse(c.store)
	if err != nil {
		return storeurl.Options{}, err
	}
	opts := c.tls
	var hasPassword bool
	opts.Username, opts.Password, hasPassword = strings.Cut(c.user, ":")
	if c.passwordFile != "" {
		if hasPassword {
			return opts, usageError{fmt.Errorf("--user carries a password and --password-file gives one: give it once")}
		}
		if opts.Password, err = readSecret("--password-file", c.passwordFile); err != nil {
			return opts, err
		}
		hasPassword = true
	}
	if c.tokenFile != "" {
		if opts.Token != "" {
			return opts, usageError{fmt.Errorf("--token and --token-file both given: give the token once")}
		}
		if opts.Token, err = readSecret("--token-file", c.tokenFile); err != nil {
			return opts, err
		}
	}
	fromEnv(p, &opts, hasPassword)
	return opts, nil
}

// fromEnv fills in, from the environment, a credential the URL and the
// flags leave out, for the URL's store only: CONSUL_HTTP_TOKEN for Consul,
// LEASEHOLD_PASSWORD for a user without a password, and
// LEASEHOLD_ZK_DIGEST for ZooKeeper without a user.
func fromEnv(p *storeurl.URL, opts *storeurl.Options, hasPassword bool) {
	switch p.Scheme {
	case "consul":
		if opts.Token == "" {
			opts.Token = os.Getenv("CONSUL_HTTP_TOKEN")
		}
		return
	case "zk", "zookeeper":
		if opts.ZKDigest == "" && opts.Username == "" && p.Username == "" {
			opts.ZKDigest = os.Getenv("LEASEHOLD_ZK_DIGEST")
		}
	}
	if (opts.Username != "" || p.Username != "") && !hasPassword && !p.HasPassword() {
		opts.Password = os.Getenv("LEASEHOLD_PASSWORD")
	}
}

// readSecret reads a password or token from a file: its whole content,
// less a trailing newline. An unreadable or empty file is an error naming
// flag and file, never the content.
func readSecret(flag, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", usageError{fmt.Errorf("%s: %w", flag, err)}
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if s == "" {
		return "", usageError{fmt.Errorf("%s %s: the file is empty: want the secret on its one line", flag, path)}
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", usageError{fmt.Errorf("%s %s: the file has more than one line: want the secret on its one line", flag, path)}
	}
	return s, nil
}
