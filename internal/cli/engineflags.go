package cli

import (
	"github.com/spf13/pflag"
)

// engineOptions say which engine runs a loop and, for the Temporal engine,
// where its server is. Each comes from the flag, else the environment, else
// the default.
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
	fs.StringVar(&o.address, "temporal-address", "", "Temporal server host:port (default "+defaultTemporalAddress+", or AGENTLOOP_TEMPORAL_ADDRESS)")
	fs.StringVar(&o.namespace, "temporal-namespace", "", "Temporal namespace (default "+defaultTemporalNamespace+", or AGENTLOOP_TEMPORAL_NAMESPACE)")
	fs.StringVar(&o.taskQueue, "temporal-task-queue", "", "Temporal task queue of the workflows (default "+defaultTemporalTaskQueue+", or AGENTLOOP_TEMPORAL_TASK_QUEUE)")
}

// resolved fills what was not given from the environment and the defaults.
func (o engineOptions) resolved(d Deps) engineOptions {
	pick := func(flag, env, def string) string {
		if flag != "" {
			return flag
		}
		if v := d.Getenv(env); v != "" {
			return v
		}
		return def
	}
	return engineOptions{
		engine:    pick(o.engine, "AGENTLOOP_ENGINE", "local"),
		address:   pick(o.address, "AGENTLOOP_TEMPORAL_ADDRESS", defaultTemporalAddress),
		namespace: pick(o.namespace, "AGENTLOOP_TEMPORAL_NAMESPACE", defaultTemporalNamespace),
		taskQueue: pick(o.taskQueue, "AGENTLOOP_TEMPORAL_TASK_QUEUE", defaultTemporalTaskQueue),
	}
}

// temporal reports whether the Temporal engine is asked for; an unknown engine
// is a usage error.
func (o engineOptions) temporal(d Deps) (bool, error) {
	switch e := o.resolved(d).engine; e {
	case "local":
		return false, nil
	case "temporal":
		return true, nil
	default:
		return false, usageError("--engine %q: want local or temporal", e)
	}
}
