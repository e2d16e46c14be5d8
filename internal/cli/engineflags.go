package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
)

// engineOptions say which engine runs a loop and, for the Temporal engine,
// where its server is, how to connect to it and how long a step may go
// without a sign of life. Each comes from the flag, else the environment,
// else the configuration (temporal.address, temporal.namespace,
// temporal.task_queue, temporal.heartbeat_timeout) of --config or
// ./agentloop.yaml; the address and namespace left empty are the Temporal
// client configuration's (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, the
// temporal.toml profile), read by the engine, as the connection's TLS and API
// key are, under the tls flags.
type engineOptions struct {
	engine    string
	address   string
	namespace string
	taskQueue string
	conn      connFlags
	// heartbeat is --heartbeat-timeout of run and resume; 0 when not set
	// anywhere: the engine's default.
	heartbeat time.Duration
	// config is the configuration file the temporal: keys are read from
	// (--config); "" for the workspace's.
	config string
}

// connFlags are the flags of the connection to the Temporal server, over
// the Temporal client configuration.
type connFlags struct {
	configFile, profile                       string
	tls                                       bool
	caCert, clientCert, clientKey, serverName string
}

// connFlagNames are the names of the connection's flags.
var connFlagNames = []string{
	"temporal-config-file", "temporal-profile", "temporal-tls", "temporal-tls-ca-path",
	"temporal-tls-cert-path", "temporal-tls-key-path", "temporal-tls-server-name",
}

// defaultTemporalTaskQueue is the workflows' queue when none is set.
const defaultTemporalTaskQueue = "agentloop"

// AddFlags adds the engine's flags to fs.
func (o *engineOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.engine, "engine", "", "local or temporal (default local, or AGENTLOOP_ENGINE)")
	fs.StringVar(&o.address, "temporal-address", "", "Temporal server host:port (default AGENTLOOP_TEMPORAL_ADDRESS, else temporal.address, else TEMPORAL_ADDRESS or the Temporal CLI's profile, else 127.0.0.1:7233)")
	fs.StringVar(&o.namespace, "temporal-namespace", "", "Temporal namespace (default AGENTLOOP_TEMPORAL_NAMESPACE, else temporal.namespace, else TEMPORAL_NAMESPACE or the Temporal CLI's profile, else default)")
	fs.StringVar(&o.taskQueue, "temporal-task-queue", "", "Temporal task queue of the workflows (default AGENTLOOP_TEMPORAL_TASK_QUEUE, else temporal.task_queue, else "+defaultTemporalTaskQueue+")")
	c := &o.conn
	fs.StringVar(&c.configFile, "temporal-config-file", "", "the Temporal client configuration file (default TEMPORAL_CONFIG_FILE, else the Temporal CLI's temporal.toml)")
	fs.StringVar(&c.profile, "temporal-profile", "", "the profile of the Temporal client configuration (default TEMPORAL_PROFILE, else default)")
	fs.BoolVar(&c.tls, "temporal-tls", false, "connect to the Temporal server over TLS (default TEMPORAL_TLS, else the profile's; implied by the other tls flags and by an API key)")
	fs.StringVar(&c.caCert, "temporal-tls-ca-path", "", "file of the CA certificates the server's certificate is checked against (default TEMPORAL_TLS_SERVER_CA_CERT_PATH, else the profile's, else the system's)")
	fs.StringVar(&c.clientCert, "temporal-tls-cert-path", "", "mTLS: file of this client's certificate (default TEMPORAL_TLS_CLIENT_CERT_PATH, else the profile's)")
	fs.StringVar(&c.clientKey, "temporal-tls-key-path", "", "mTLS: file of this client's private key (default TEMPORAL_TLS_CLIENT_KEY_PATH, else the profile's)")
	fs.StringVar(&c.serverName, "temporal-tls-server-name", "", "the name the server's certificate must have (default TEMPORAL_TLS_SERVER_NAME, else the profile's, else the address's host)")
	hideWithoutTemporal(fs, append([]string{"temporal-address", "temporal-namespace", "temporal-task-queue"}, connFlagNames...)...)
}

// hideWithoutTemporal hides the Temporal engine's flags from the help of a
// build without the engine (--engine temporal says how to build it).
func hideWithoutTemporal(fs *pflag.FlagSet, names ...string) {
	if temporalBuilt {
		return
	}
	for _, n := range names {
		_ = fs.MarkHidden(n)
	}
}

// AddHeartbeatFlag adds --heartbeat-timeout to fs (run and resume).
func (o *engineOptions) AddHeartbeatFlag(fs *pflag.FlagSet) {
	fs.DurationVar(&o.heartbeat, "heartbeat-timeout", 0, "with --engine temporal: a step whose worker shows no sign of life for this long runs again; a worker that takes none of the run's steps for twice as long is gone, and another rebuilds the work tree (default AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT, else temporal.heartbeat_timeout, else 30s; resume keeps the run's)")
	hideWithoutTemporal(fs, "heartbeat-timeout")
}

// AddConfigFlag adds --config to fs, for the commands that have no loop
// flags (which have it): the file the temporal: keys are read from.
func (o *engineOptions) AddConfigFlag(fs *pflag.FlagSet) {
	fs.StringVar(&o.config, "config", "", "workspace configuration file, for its temporal: keys (default ./agentloop.yaml)")
}

// resolved fills what was not given: each from the flag, else the
// environment, else the configuration's temporal: keys, else the default. An
// environment variable that is not a duration is a usage error.
func (o engineOptions) resolved(d Deps) (engineOptions, error) {
	var conf *config.Temporal // loaded once, when a value is not given otherwise
	fromConfig := func() config.Temporal {
		if conf == nil {
			conf = &config.Temporal{}
			// A configuration that does not load leaves the defaults: the
			// commands that need it (run) report why.
			if wd, err := d.Getwd(); err == nil {
				if cfg, err := config.Load(config.Options{ConfigFile: o.config, WorkDir: wd, Getenv: d.Getenv}); err == nil {
					conf = &cfg.Temporal
				}
			}
		}
		return *conf
	}
	pick := func(flag, env string, key func(config.Temporal) string, def string) string {
		if flag != "" {
			return flag
		}
		if v := d.Getenv(env); v != "" {
			return v
		}
		if v := key(fromConfig()); v != "" {
			return v
		}
		return def
	}
	r := engineOptions{engine: o.engineName(d), config: o.config, conn: o.conn}
	r.address = pick(o.address, "AGENTLOOP_TEMPORAL_ADDRESS", func(t config.Temporal) string { return t.Address }, "")
	r.namespace = pick(o.namespace, "AGENTLOOP_TEMPORAL_NAMESPACE", func(t config.Temporal) string { return t.Namespace }, "")
	r.taskQueue = pick(o.taskQueue, "AGENTLOOP_TEMPORAL_TASK_QUEUE", func(t config.Temporal) string { return t.TaskQueue }, defaultTemporalTaskQueue)
	hb := pick(durationText(o.heartbeat), "AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT", func(t config.Temporal) string { return durationText(t.HeartbeatTimeout) }, "0")
	var err error
	if r.heartbeat, err = time.ParseDuration(hb); err != nil || r.heartbeat < 0 {
		return engineOptions{}, usageError("AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT=%q: want a duration like 30s or 2m", hb)
	}
	return r, nil
}

// durationText is a duration as pick takes it: "" when not set.
func durationText(v time.Duration) string {
	if v <= 0 {
		return ""
	}
	return v.String()
}

// engineName is the engine asked for: the flag, else AGENTLOOP_ENGINE, else local.
func (o engineOptions) engineName(d Deps) string {
	if o.engine != "" {
		return o.engine
	}
	if v := d.Getenv("AGENTLOOP_ENGINE"); v != "" {
		return v
	}
	return "local"
}
