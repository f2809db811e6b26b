package zookeeper

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// zkLogger is go-zookeeper's zk.Logger on a *slog.Logger: each line
// go-zookeeper prints ("connected to …", "authenticated: id=…",
// "failed to connect to …") becomes one record with the attribute
// "component"="go-zookeeper", at Warn if it reports a failure or an error
// and at Debug otherwise. go-zookeeper's lines carry no credentials.
type zkLogger struct{ l *slog.Logger }

// Printf logs one go-zookeeper line.
func (z zkLogger) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	level := slog.LevelDebug
	if lower := strings.ToLower(msg); strings.Contains(lower, "fail") || strings.Contains(lower, "error") {
		level = slog.LevelWarn
	}
	z.l.Log(context.Background(), level, msg, "component", "go-zookeeper")
}
