package temporal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	tlog "go.temporal.io/sdk/log"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The server and namespace when neither agentloop's settings nor the Temporal
// client configuration name one.
const (
	DefaultAddress   = "127.0.0.1:7233"
	DefaultNamespace = "default"
)

// Server is where the engine's server is, how a client connects to it, and
// which of its queues it uses.
type Server struct {
	// Address is host:port; "" for the Temporal client configuration's
	// (TEMPORAL_ADDRESS, the temporal.toml profile), else [DefaultAddress].
	Address string
	// Namespace is "" for the client configuration's, else [DefaultNamespace].
	Namespace string
	TaskQueue string // the workflows' queue (and the steps', unless a run is routed)
	Conn      Conn
	// Metrics receives the SDK's metrics of the client ([Metrics.SDK]); nil
	// for none.
	Metrics client.MetricsHandler
}

// Conn is how a client connects, over what the Temporal client configuration
// says: the profile of the temporal.toml file (the Temporal CLI's, so that a
// user's profile works unchanged) with the TEMPORAL_* environment variables
// over it, as the SDK's envconfig reads them, and the fields set here over
// both. A field left empty keeps the configuration's.
type Conn struct {
	ConfigFile string // the temporal.toml file; "" for TEMPORAL_CONFIG_FILE, else the user's
	Profile    string // its profile; "" for TEMPORAL_PROFILE, else "default"
	TLS        bool   // connect over TLS (implied by any setting below but the API key)
	CACert     string // the file of the CA certificates the server's is checked against
	ClientCert string // mTLS: the file of the client's certificate
	ClientKey  string // mTLS: the file of its private key
	ServerName string // the name the server's certificate must have (SNI)
	// APIKey is sent as a bearer token on every call (TLS on unless the
	// configuration turns it off). It is never shown: [Server.Describe]
	// says only whether one is set.
	APIKey string
	// Lookup reads the environment (TEMPORAL_*); nil for the process's.
	Lookup func(string) (string, bool)
	// Environ lists the environment, for TEMPORAL_GRPC_META_*; nil for the
	// process's.
	Environ func() []string
}

// Resolved is a server whose address and namespace are final, with the SDK's
// client options of the connection.
type Resolved struct {
	Server
	options client.Options
	tls     bool
	apiKey  bool
	files   []string // the TLS files, for Describe
}

// Resolve reads the Temporal client configuration and lays the server's
// settings over it. A configuration that does not parse, a profile that is
// not in it, or TLS settings that do not make a TLS configuration (a client
// certificate without its key, a file that cannot be read or parsed) are
// errors naming what was wrong.
func (s Server) Resolve() (Resolved, error) {
	c := s.Conn
	prof, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{
		ConfigFilePath: c.ConfigFile, ConfigFileProfile: c.Profile, EnvLookup: c.env(),
	})
	if err != nil {
		return Resolved{}, fmt.Errorf("read the Temporal client configuration (%s): %w", c.where(), err)
	}
	s.Address = cmp.Or(s.Address, prof.Address, DefaultAddress)
	s.Namespace = cmp.Or(s.Namespace, prof.Namespace, DefaultNamespace)
	prof.Address, prof.Namespace = s.Address, s.Namespace
	prof.APIKey = cmp.Or(c.APIKey, prof.APIKey)
	if c.TLS || c.CACert != "" || c.ClientCert != "" || c.ClientKey != "" || c.ServerName != "" {
		if prof.TLS == nil {
			prof.TLS = &envconfig.ClientConfigTLS{}
		}
		t := prof.TLS
		t.Disabled = false
		if c.CACert != "" {
			t.ServerCACertPath, t.ServerCACertData = c.CACert, nil
		}
		if c.ClientCert != "" || c.ClientKey != "" {
			t.ClientCertPath, t.ClientCertData = c.ClientCert, nil
			t.ClientKeyPath, t.ClientKeyData = c.ClientKey, nil
		}
		t.ServerName = cmp.Or(c.ServerName, t.ServerName)
	}
	opts, err := prof.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return Resolved{}, fmt.Errorf("the TLS settings of the Temporal connection to %s: %w", s.Address, err)
	}
	r := Resolved{Server: s, options: opts, tls: opts.ConnectionOptions.TLS != nil, apiKey: prof.APIKey != ""}
	if t := prof.TLS; r.tls && t != nil {
		for _, f := range []struct{ what, path string }{{"CA", t.ServerCACertPath}, {"client certificate", t.ClientCertPath}} {
			if f.path != "" {
				r.files = append(r.files, f.what+" "+f.path)
			}
		}
		if t.ServerName != "" {
			r.files = append(r.files, "server name "+t.ServerName)
		}
	}
	return r, nil
}

// Describe says how the client connects, for messages: the address, the
// namespace, TLS and its files, whether an API key is sent (never the key).
func (r Resolved) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (namespace %s", r.Address, r.Namespace)
	switch {
	case r.tls && len(r.files) > 0:
		fmt.Fprintf(&b, ", TLS with %s", strings.Join(r.files, ", "))
	case r.tls:
		b.WriteString(", TLS")
	default:
		b.WriteString(", no TLS")
	}
	if r.apiKey {
		b.WriteString(", an API key")
	}
	b.WriteString(")")
	return b.String()
}

func (c Conn) env() envconfig.EnvLookup { return envLookup{c} }

// where names the configuration file read, for errors.
func (c Conn) where() string {
	file := c.ConfigFile
	if file == "" {
		file, _ = c.env().LookupEnv("TEMPORAL_CONFIG_FILE")
	}
	if file == "" {
		file, _ = envconfig.DefaultConfigFilePath()
	}
	return file
}

type envLookup struct{ c Conn }

func (e envLookup) LookupEnv(k string) (string, bool) {
	if e.c.Lookup != nil {
		return e.c.Lookup(k)
	}
	return os.LookupEnv(k)
}

func (e envLookup) Environ() []string {
	if e.c.Environ != nil {
		return e.c.Environ()
	}
	return os.Environ()
}

// DialTimeout is how long [Dial] tries to reach the server.
const DialTimeout = 5 * time.Second

// Dial connects to the server and checks that its namespace exists, failing
// within [DialTimeout] when it cannot be reached. The error names where it
// connected and how ([Resolved.Describe]), and what to change.
func Dial(ctx context.Context, s Server, log *slog.Logger) (client.Client, error) {
	r, err := s.Resolve()
	if err != nil {
		return nil, err
	}
	return r.Dial(ctx, log)
}

// Dial connects to the resolved server; see [Dial].
func (r Resolved) Dial(ctx context.Context, log *slog.Logger) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	opts := r.options
	opts.Logger = tlog.NewStructuredLogger(log)
	opts.MetricsHandler = r.Metrics
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		hint := "start one (temporal server start-dev) or set --temporal-address or AGENTLOOP_TEMPORAL_ADDRESS"
		if r.tls {
			hint = "check the server's address and the TLS settings (--temporal-tls-*, TEMPORAL_TLS_*, the temporal.toml profile)"
		}
		return nil, fmt.Errorf("cannot reach the Temporal server at %s: %w; %s", r.Describe(), err, hint)
	}
	_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: r.Namespace})
	if _, ok := errors.AsType[*serviceerror.NamespaceNotFound](err); ok {
		c.Close()
		return nil, fmt.Errorf("the Temporal server at %s has no namespace %s: create it (temporal operator namespace create --namespace %s) or set --temporal-namespace", r.Address, r.Namespace, r.Namespace)
	}
	if _, ok := errors.AsType[*serviceerror.PermissionDenied](err); err != nil && !ok {
		c.Close()
		return nil, fmt.Errorf("the Temporal server at %s: describe namespace %s: %w", r.Describe(), r.Namespace, err)
	}
	return c, nil
}

// Unreachable reports whether err says the server did not answer (it is
// down, restarting, or the network to it is cut), as opposed to an answer
// refusing the call: a client following a run tries again for as long as it
// takes. A cancellation of the caller's own context is not one.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := errors.AsType[*serviceerror.Unavailable](err); ok {
		return true
	}
	if _, ok := errors.AsType[*serviceerror.DeadlineExceeded](err); ok {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}
