// The Temporal dev server the project installs: `temporal server start-dev`, built from the Temporal CLI's own
// devserver package (github.com/temporalio/cli, internal/devserver) and the Temporal server it pins, with the flags
// that the Temporal SDKs, the project's tests and its demo pass. scripts/install-temporal.sh builds it inside a copy
// of the CLI's module: that module's command tree needs a nested module (cliext) the Go module proxy does not serve,
// and this program does not use it.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/uuid"
	"github.com/temporalio/cli/internal/devserver"
	"go.temporal.io/api/enums/v1"
)

// version is set at build time (-ldflags "-X main.version=…").
var version = "dev"

// repeated collects a flag given more than once.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// Dynamic config the CLI's dev server sets unless told otherwise: search attributes and Nexus endpoints visible at
// once, and the persistence rates that suit that.
var defaults = map[string]any{
	"system.forceSearchAttributesCacheRefreshOnRead": true,
	"system.forceNexusEndpointRefreshOnRead":         true,
	"frontend.persistenceMaxQPS":                     10000,
	"history.persistenceMaxQPS":                      45000,
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		fmt.Printf("temporal version %s (dev server only)\n", version)
		return nil
	}
	if len(args) < 2 || args[0] != "server" || args[1] != "start-dev" {
		return errors.New("usage: temporal server start-dev [flags] (this build runs the dev server only)")
	}
	fs := flag.NewFlagSet("start-dev", flag.ContinueOnError)
	ip := fs.String("ip", "localhost", "IP address the frontend binds to")
	port := fs.Int("port", 7233, "frontend gRPC port")
	httpPort := fs.Int("http-port", 0, "frontend HTTP port (0: none)")
	metricsPort := fs.Int("metrics-port", 0, "Prometheus metrics port (0: a free one)")
	uiPort := fs.Int("ui-port", 0, "Web UI port (0: the frontend port + 1000)")
	uiIP := fs.String("ui-ip", "", "IP address the Web UI binds to (default: --ip)")
	headless := fs.Bool("headless", false, "no Web UI")
	dbFile := fs.String("db-filename", "", "SQLite file (default: in memory)")
	logLevel := fs.String("log-level", "warn", "debug, info, warn, error or never")
	logFormat := fs.String("log-format", "text", "text, pretty or json")
	var namespaces, dynamic, searchAttrs, pragmas repeated
	fs.Var(&namespaces, "namespace", "another namespace to create (repeatable; default is always there)")
	fs.Var(&dynamic, "dynamic-config-value", "KEY=JSON value (repeatable)")
	fs.Var(&searchAttrs, "search-attribute", "NAME=TYPE to register (repeatable)")
	fs.Var(&pragmas, "sqlite-pragma", "NAME=VALUE (repeatable)")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	if *ip == "localhost" {
		*ip = "127.0.0.1" // the server wants an IP
	}

	opts := devserver.StartOptions{
		FrontendIP:             *ip,
		FrontendPort:           *port,
		Namespaces:             append([]string{"default"}, namespaces...),
		DatabaseFile:           *dbFile,
		MetricsPort:            *metricsPort,
		FrontendHTTPPort:       *httpPort,
		ClusterID:              "dev-server-" + uuid.NewString(),
		MasterClusterName:      "active",
		CurrentClusterName:     "active",
		InitialFailoverVersion: 1,
	}
	level, err := parseLevel(*logLevel)
	if err != nil {
		return err
	}
	opts.LogLevel = level
	opts.Logger = logger(*logFormat, level)
	if !*headless {
		opts.UIIP, opts.UIPort = *uiIP, *uiPort
		if opts.UIIP == "" {
			opts.UIIP = *ip
		}
		if opts.UIPort == 0 {
			opts.UIPort = min(*port+1000, 65535)
		}
		if err := devserver.CheckPortFree(opts.UIIP, opts.UIPort); err != nil {
			return fmt.Errorf("--ui-port %d: %w", opts.UIPort, err)
		}
	}
	if err := devserver.CheckPortFree(opts.FrontendIP, opts.FrontendPort); err != nil {
		return fmt.Errorf("--port %d: %w", opts.FrontendPort, err)
	}
	if opts.MetricsPort == 0 {
		opts.MetricsPort = devserver.MustGetFreePort(opts.FrontendIP)
	}
	if opts.DynamicConfigValues, err = dynamicConfig(dynamic); err != nil {
		return err
	}
	if opts.SearchAttributes, err = searchAttributes(searchAttrs); err != nil {
		return err
	}
	if opts.SqlitePragmas, err = keyValues("--sqlite-pragma", pragmas); err != nil {
		return err
	}

	server, err := devserver.Start(opts)
	if err != nil {
		return fmt.Errorf("failed starting server: %w", err)
	}
	defer server.Stop()
	fmt.Printf("Temporal Server:  %s:%d\n", *ip, *port)
	if opts.UIIP != "" {
		fmt.Printf("Temporal UI:      http://%s:%d\n", opts.UIIP, opts.UIPort)
	}
	fmt.Printf("Temporal Metrics: http://%s:%d/metrics\n", *ip, opts.MetricsPort)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	return nil
}

func parseLevel(name string) (slog.Level, error) {
	if name == "never" {
		return slog.Level(100), nil
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(name)); err != nil {
		return 0, fmt.Errorf("--log-level %q: %w", name, err)
	}
	return level, nil
}

func logger(format string, level slog.Level) *slog.Logger {
	options := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, options))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, options))
}

func keyValues(flagName string, values []string) (map[string]string, error) {
	out := make(map[string]string, len(values))
	for _, kv := range values {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: expected KEY=VALUE", flagName, kv)
		}
		out[k] = v
	}
	return out, nil
}

// dynamicConfig reads KEY=VALUE pairs whose values are JSON (a bare word is a string), numbers as int where whole,
// as the server's dynamic config wants them, over the defaults.
func dynamicConfig(values []string) (map[string]any, error) {
	pairs, err := keyValues("--dynamic-config-value", values)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(pairs)+len(defaults))
	for k, v := range defaults {
		out[k] = v
	}
	for k, raw := range pairs {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			v = raw
		}
		if n, ok := v.(json.Number); ok {
			if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
				v = int(i)
			} else if f, err := n.Float64(); err == nil {
				v = f
			}
		}
		out[k] = v
	}
	return out, nil
}

func searchAttributes(values []string) (map[string]enums.IndexedValueType, error) {
	pairs, err := keyValues("--search-attribute", values)
	if err != nil {
		return nil, err
	}
	out := make(map[string]enums.IndexedValueType, len(pairs))
	for name, typ := range pairs {
		var found enums.IndexedValueType
		for short, ord := range enums.IndexedValueType_shorthandValue {
			if strings.EqualFold(typ, short) {
				found = enums.IndexedValueType(ord)
			}
		}
		if found == 0 {
			return nil, fmt.Errorf("--search-attribute %s=%s: unknown type", name, typ)
		}
		out[name] = found
	}
	return out, nil
}
