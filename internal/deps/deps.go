// Package deps pins modules that work in progress will import.
package deps

import (
	_ "github.com/Shopify/toxiproxy/v2"
	_ "github.com/prometheus/client_golang/prometheus"
)
