package cli

import (
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
)

// engineOptions say which engine runs a loop and, for the Temporal engine,
// where its server is. Each comes from the flag, else the environment, else
// the configuration (temporal.address, temporal.namespace,
// temporal.task_queue), else the default.
type engineOptions struct {
	engine    string
	address   string
	namespace string
	taskQueue string
}

// The Temporal engine's defaults.
const (
	defaultTemporalAddress   = "127.0.0.1:7233"
	defaultTemporalNamespace = "default"
	defaultTemporalTaskQueue = "agentloop"
)

// AddFlags adds the engine's flags to fs.
func (o *engineOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.engine, "engine", "", "local or temporal (default local, or AGENTLOOP_ENGINE)")
	fs.StringVar(&o.address, "temporal-address", "", "Temporal server host:port (default AGENTLOOP_TEMPORAL_ADDRESS, else temporal.address, else "+defaultTemporalAddress+")")
	fs.StringVar(&o.namespace, "temporal-namespace", "", "Temporal namespace (default AGENTLOOP_TEMPORAL_NAMESPACE, else temporal.namespace, else "+defaultTemporalNamespace+")")
	fs.StringVar(&o.taskQueue, "temporal-task-queue", "", "Temporal task queue of the workflows (default AGENTLOOP_TEMPORAL_TASK_QUEUE, else temporal.task_queue, else "+defaultTemporalTaskQueue+")")
}

// resolved fills what was not given: each from the flag, else the
// environment, else the configuration's temporal: keys, else the default.
func (o engineOptions) resolved(d Deps) engineOptions {
	var conf *config.Temporal // loaded once, when a value is not given otherwise
	fromConfig := func() config.Temporal {
		if conf == nil {
			conf = &config.Temporal{}
			// A configuration that does not load leaves the defaults: the
			// commands that need it (run) report why.
			if wd, err := d.Getwd(); err == nil {
				if cfg, err := config.Load(config.Options{WorkDir: wd, Getenv: d.Getenv}); err == nil {
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
	r := engineOptions{engine: o.engineName(d)}
	r.address = pick(o.address, "AGENTLOOP_TEMPORAL_ADDRESS", func(t config.Temporal) string { return t.Address }, defaultTemporalAddress)
	r.namespace = pick(o.namespace, "AGENTLOOP_TEMPORAL_NAMESPACE", func(t config.Temporal) string { return t.Namespace }, defaultTemporalNamespace)
	r.taskQueue = pick(o.taskQueue, "AGENTLOOP_TEMPORAL_TASK_QUEUE", func(t config.Temporal) string { return t.TaskQueue }, defaultTemporalTaskQueue)
	return r
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

// temporal reports whether the Temporal engine is asked for; an unknown engine
// is a usage error.
func (o engineOptions) temporal(d Deps) (bool, error) {
	switch e := o.engineName(d); e {
	case "local":
		return false, nil
	case "temporal":
		return true, nil
	default:
		return false, usageError("--engine %q: want local or temporal", e)
	}
}
