package main

import (
	"fmt"
	"os"
	"slices"
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
// flags leave out, for the URL's store only, with TLS or without:
// CONSUL_HTTP_TOKEN for Consul, LEASEHOLD_PASSWORD for a user without a
// password, and LEASEHOLD_ZK_DIGEST for ZooKeeper without a user.
func fromEnv(p *storeurl.URL, opts *storeurl.Options, hasPassword bool) {
	switch p.Scheme {
	case "consul", "consuls":
		if opts.Token == "" {
			opts.Token = os.Getenv("CONSUL_HTTP_TOKEN")
		}
		return
	case "zk", "zookeeper", "zks":
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

// secretEnv are the variables from which leasehold may take a store or a
// credential: its own (LEASEHOLD_STORE may carry a password in its user
// info) and Consul's (which package api reads besides fromEnv). None reaches
// CMD's environment, whatever the store: a CMD that needs a credential is
// given it on purpose, not by inheritance from the lock holder.
var secretEnv = []string{"LEASEHOLD_STORE=", "LEASEHOLD_PASSWORD=", "LEASEHOLD_ZK_DIGEST=",
	"CONSUL_HTTP_TOKEN=", "CONSUL_HTTP_TOKEN_FILE=", "CONSUL_HTTP_AUTH="}

// childEnv returns env without secretEnv.
func childEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !slices.ContainsFunc(secretEnv, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			out = append(out, kv)
		}
	}
	return out
}
