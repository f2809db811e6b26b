package storeurl

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// checkHosts checks that every address of the URL is host:port with a host
// and a port in 1..65535; with defaultPort, a host alone is allowed too.
// Its errors are ErrInvalid.
func checkHosts(store string, hosts []string, defaultPort bool) error {
	for _, h := range hosts {
		if err := checkHost(h, defaultPort); err != nil {
			return invalidf("%s URL: address %q: %w", store, h, err)
		}
	}
	return nil
}

func checkHost(h string, defaultPort bool) error {
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		if strings.Contains(strings.Trim(h, "[]"), ":") {
			return fmt.Errorf("%w: want host:port", err)
		}
		if !defaultPort {
			return errors.New("no port: want host:port")
		}
		host, port = h, "1"
	}
	if host == "" {
		return errors.New("no host: want host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want a number in 1..65535", port)
	}
	return nil
}
