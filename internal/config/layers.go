package config

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/notify/target"
	"github.com/agentloop/agentloop/internal/yamlnode"
)

// EnvVar is one environment variable agentloop reads, and the key it sets.
type EnvVar struct {
	Name string // AGENTLOOP_…
	Key  string // the procedure key it sets (dotted), or a top-level key
	Top  bool   // a top-level key, not a procedure's
}

// EnvVars lists the environment variables, in the order they are applied.
// AGENTLOOP_AGENT_CMD is a shell command line run as the agent (prompt on stdin);
// AGENTLOOP_PROCEDURE names the default procedure.
func EnvVars() []EnvVar {
	return []EnvVar{
		{Name: "AGENTLOOP_PROCEDURE", Key: "default", Top: true},
		{Name: "AGENTLOOP_STATE_DIR", Key: "state_dir", Top: true},
		{Name: "AGENTLOOP_LOG_FORMAT", Key: "log_format", Top: true},
		{Name: "AGENTLOOP_KEEP_AWAKE", Key: "keep_awake", Top: true},
		{Name: "AGENTLOOP_TEMPORAL_ADDRESS", Key: "temporal.address", Top: true},
		{Name: "AGENTLOOP_TEMPORAL_NAMESPACE", Key: "temporal.namespace", Top: true},
		{Name: "AGENTLOOP_TEMPORAL_TASK_QUEUE", Key: "temporal.task_queue", Top: true},
		{Name: "AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT", Key: "temporal.heartbeat_timeout", Top: true},
		{Name: "AGENTLOOP_GITHUB_APP_ID", Key: "issues.app.id", Top: true},
		{Name: "AGENTLOOP_GITHUB_APP_INSTALLATION_ID", Key: "issues.app.installation_id", Top: true},
		{Name: "AGENTLOOP_GITHUB_APP_KEY_FILE", Key: "issues.app.private_key_file", Top: true},
		{Name: "AGENTLOOP_AGENT", Key: "agent"},
		{Name: "AGENTLOOP_AGENT_CMD", Key: "agent.cmd"},
		{Name: "AGENTLOOP_REVIEWER", Key: "reviewer.agent"},
		{Name: "AGENTLOOP_MAX_ITERATIONS", Key: "limits.max_iterations"},
		{Name: "AGENTLOOP_FAILURE_THRESHOLD", Key: "limits.failure_threshold"},
		{Name: "AGENTLOOP_ITERATION_TIMEOUT", Key: "limits.iteration_timeout"},
		{Name: "AGENTLOOP_IDLE_TIMEOUT", Key: "limits.idle_timeout"},
		{Name: "AGENTLOOP_GATE_TIMEOUT", Key: "limits.gate_timeout"},
		{Name: "AGENTLOOP_TIMEOUT", Key: "limits.timeout"},
		{Name: "AGENTLOOP_MAX_DURATION", Key: "limits.max_duration"},
		{Name: "AGENTLOOP_MAX_TOKENS", Key: "limits.max_tokens"},
		{Name: "AGENTLOOP_MAX_COST_USD", Key: "limits.max_cost_usd"},
		{Name: "AGENTLOOP_TOKEN_BUDGET", Key: "limits.token_budget"},
	}
}

// EnvHelp is one environment variable as `agentloop help environment` and the
// docs/configuration.md list it.
type EnvHelp struct {
	Name, Means string
}

// Environment lists every AGENTLOOP_* variable a user may set: those that set a
// configuration key ([EnvVars]) and those that tune the process itself.
func Environment() []EnvHelp {
	var out []EnvHelp
	for _, v := range EnvVars() {
		means := v.Key
		if v.Key == "agent.cmd" {
			means = "agent: {cmd: ...}, a shell command run as the agent"
		}
		if v.Key == "default" {
			means = "the default procedure"
		}
		out = append(out, EnvHelp{v.Name, "sets " + means})
	}
	return append(out,
		EnvHelp{"AGENTLOOP_ENGINE", "the engine: local (default) or temporal"},
		EnvHelp{"AGENTLOOP_KILL_GRACE", "how long an ended agent or gate gets between SIGTERM and SIGKILL (a Go duration)"},
		EnvHelp{"AGENTLOOP_STOP_GRACE", "how long a task graph stopped by a signal may still take to commit a task's work or finish a merge's bookkeeping, before that git work is cut (a Go duration, default 2m)"},
		EnvHelp{"AGENTLOOP_BACKOFF_BASE", "the first wait before retrying an overloaded or unreachable agent (a Go duration)"},
		EnvHelp{"AGENTLOOP_RATE_LIMIT_MAX_WAIT", "the longest wait for an agent's rate limit to reset before stopping (a Go duration)"},
		EnvHelp{"AGENTLOOP_BUDGET_POLL", "how often a loop parked by a soft limit of budgets: looks at the spend ledger again (a Go duration, default 5s)"},
		EnvHelp{"AGENTLOOP_CGROUP", "off: no cgroup of its own for each agent and gate run; what leaves a run and drops its marker is then found among the orphans agentloop adopts (see agentloop doctor)"},
		EnvHelp{target.DefaultSecretEnv, "the secret a notify.webhook's body is signed with (HMAC-SHA256, X-Agentloop-Signature-256) when it names no secret_env"},
	)
}

// layerBuilder builds a synthetic layer (environment or flags) as nodes, so it
// merges and reports its sources like a file.
type layerBuilder struct {
	at        origins
	top, proc *yaml.Node
}

func newLayer(at origins) *layerBuilder {
	return &layerBuilder{at: at,
		top:  &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"},
		proc: &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}}
}

// set puts v at the dotted key of root, creating mappings on the way.
func (l *layerBuilder) set(root *yaml.Node, key string, v *yaml.Node, o origin) {
	parts := strings.Split(key, ".")
	n := root
	for _, p := range parts[:len(parts)-1] {
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p && n.Content[i+1].Kind == yaml.MappingNode {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p}, next)
		}
		n = next
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: parts[len(parts)-1]}
	l.at.register(k, o)
	l.at.register(v, o)
	n.Content = append(n.Content, k, v)
}

// plain is an untagged scalar, typed the way YAML would type it in a file.
func plain(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// str is a scalar that stays a string.
func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func list(o origins, og origin, items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range items {
		c := str(s)
		o.register(c, og)
		n.Content = append(n.Content, c)
	}
	return n
}

// envLayer reads the AGENTLOOP_* variables.
func envLayer(at origins, getenv func(string) string) *layerBuilder {
	l := newLayer(at)
	for _, e := range EnvVars() {
		v := getenv(e.Name)
		if v == "" || (e.Name == "AGENTLOOP_AGENT_CMD" && getenv("AGENTLOOP_AGENT") != "") {
			continue // both agent variables: Load reports it
		}
		o := origin{tier: "env", name: e.Name}
		switch {
		case e.Key == "keep_awake" || e.Key == "issues.app.installation_id": // a boolean, a number: not a string
			l.set(l.top, e.Key, plain(v), o)
		case e.Top:
			l.set(l.top, e.Key, str(v), o)
		case e.Key == "agent.cmd":
			cmd := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			l.set(cmd, "cmd", str(v), o)
			l.set(l.proc, "agent", cmd, o)
		case e.Key == "agent" || e.Key == "reviewer.agent":
			l.set(l.proc, e.Key, str(v), o)
		default:
			l.set(l.proc, e.Key, plain(v), o)
		}
	}
	return l
}

// flagLayer turns the run command's flags into a layer. Context entries are
// appended to base's context (the merged lower tiers); gates replace.
func flagLayer(at origins, f Overrides) *layerBuilder {
	l := newLayer(at)
	fl := func(name string) origin { return origin{tier: "flag", name: "--" + name} }
	if f.LogFormat != nil {
		l.set(l.top, "log_format", str(*f.LogFormat), fl("log-format"))
	}
	if f.KeepAwake != nil {
		l.set(l.top, "keep_awake", plain(strconv.FormatBool(*f.KeepAwake)), fl("keep-awake"))
	}
	if f.Agent != nil {
		l.set(l.proc, "agent", str(*f.Agent), fl("agent"))
	}
	if f.AgentCmd != nil && f.Agent == nil { // both: Load reports it
		cmd := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		l.set(cmd, "cmd", str(*f.AgentCmd), fl("agent-cmd"))
		l.set(l.proc, "agent", cmd, fl("agent-cmd"))
	}
	if f.Reviewer != nil {
		l.set(l.proc, "reviewer.agent", str(*f.Reviewer), fl("reviewer"))
	}
	if f.Sandbox != nil {
		l.set(l.proc, "sandbox.agents", plain(strconv.FormatBool(*f.Sandbox)), fl("sandbox"))
	}
	if len(f.Gates) > 0 {
		l.set(l.proc, "gates", list(at, fl("gate"), f.Gates), fl("gate"))
	}
	num := func(p *int, name, key string) {
		if p != nil {
			l.set(l.proc, key, plain(strconv.Itoa(*p)), fl(name))
		}
	}
	dur := func(p *time.Duration, name, key string) {
		if p != nil {
			l.set(l.proc, key, plain(p.String()), fl(name))
		}
	}
	num(f.MaxIterations, "max-iterations", "limits.max_iterations")
	num(f.FailureThreshold, "failure-threshold", "limits.failure_threshold")
	dur(f.IterationTimeout, "iteration-timeout", "limits.iteration_timeout")
	dur(f.Timeout, "timeout", "limits.timeout")
	dur(f.GateTimeout, "gate-timeout", "limits.gate_timeout")
	dur(f.MaxDuration, "max-duration", "limits.max_duration")
	if f.MaxTokens != nil {
		l.set(l.proc, "limits.max_tokens", plain(strconv.FormatInt(*f.MaxTokens, 10)), fl("max-tokens"))
	}
	if f.MaxCostUSD != nil {
		l.set(l.proc, "limits.max_cost_usd", plain(strconv.FormatFloat(*f.MaxCostUSD, 'f', -1, 64)), fl("max-cost"))
	}
	return l
}

// appendContext returns proc with extra context entries appended to the
// context of base (the merged lower tiers).
func appendContext(at origins, proc *yaml.Node, extra []string) *yaml.Node {
	if len(extra) == 0 {
		return proc
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if p := yamlnode.Resolve(proc); p != nil && p.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(p.Content); i += 2 {
			if p.Content[i].Value != "prompt" {
				continue
			}
			pr := yamlnode.Resolve(p.Content[i+1])
			for j := 0; pr != nil && j+1 < len(pr.Content); j += 2 {
				if c := yamlnode.Resolve(pr.Content[j+1]); pr.Content[j].Value == "context" && c != nil && c.Kind == yaml.SequenceNode {
					seq.Content = append(seq.Content, c.Content...)
				}
			}
		}
	}
	seq.Content = append(seq.Content, list(at, origin{tier: "flag", name: "--context"}, extra).Content...)
	l := newLayer(at)
	l.set(l.proc, "prompt.context", seq, origin{tier: "flag", name: "--context"})
	return merge(proc, l.proc, "")
}
