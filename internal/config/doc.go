// Package config loads agentloop's configuration and resolves procedures.
//
// Tiers, later wins: built-in defaults, the global file
// ($XDG_CONFIG_HOME/agentloop/config.yaml, else ~/.config/agentloop/config.yaml),
// the workspace file (./agentloop.yaml, or --config FILE), the AGENTLOOP_*
// environment variables ([EnvVars]), then the run command's flags ([Overrides]).
// Within a file, `defaults:` applies to every procedure and a procedure's own
// keys win over it. Mappings merge key by key; lists (gates, context, args)
// and an agent replace each other whole — except --context, which appends.
// [Config.Sources] tells where each effective value came from.
//
// Decoding is strict: an unknown key or a value of the wrong type is an
// [Error] naming file:line:col and what was expected, and every problem is
// reported at once.
//
// # Environment variables
//
//	AGENTLOOP_PROCEDURE          default procedure
//	AGENTLOOP_STATE_DIR          state_dir
//	AGENTLOOP_LOG_FORMAT         log_format (text | json)
//	AGENTLOOP_KEEP_AWAKE         keep_awake (true | false)
//	AGENTLOOP_TEMPORAL_ADDRESS   temporal.address (host:port of the Temporal server)
//	AGENTLOOP_TEMPORAL_NAMESPACE temporal.namespace
//	AGENTLOOP_TEMPORAL_TASK_QUEUE temporal.task_queue
//	AGENTLOOP_TEMPORAL_HEARTBEAT_TIMEOUT temporal.heartbeat_timeout (a Go duration: 30s)
//	AGENTLOOP_GITHUB_APP_ID      issues.app.id (a GitHub App's id or client id)
//	AGENTLOOP_GITHUB_APP_INSTALLATION_ID issues.app.installation_id
//	AGENTLOOP_GITHUB_APP_KEY_FILE issues.app.private_key_file (the key's path, never the key)
//	AGENTLOOP_AGENT              agent (a configured agent or preset name)
//	AGENTLOOP_AGENT_CMD          agent: {cmd: "shell command"} (not with AGENTLOOP_AGENT)
//	AGENTLOOP_REVIEWER           reviewer.agent
//	AGENTLOOP_MAX_ITERATIONS     limits.max_iterations (0: unlimited)
//	AGENTLOOP_FAILURE_THRESHOLD  limits.failure_threshold
//	AGENTLOOP_ITERATION_TIMEOUT  limits.iteration_timeout (a Go duration: 30m)
//	AGENTLOOP_IDLE_TIMEOUT       limits.idle_timeout
//	AGENTLOOP_GATE_TIMEOUT       limits.gate_timeout (a Go duration: 10m)
//	AGENTLOOP_TIMEOUT            limits.timeout (the whole run)
//	AGENTLOOP_MAX_DURATION       limits.max_duration
//	AGENTLOOP_MAX_TOKENS         limits.max_tokens
//	AGENTLOOP_MAX_COST_USD       limits.max_cost_usd
//	AGENTLOOP_TOKEN_BUDGET       limits.token_budget (per prompt, warns)
//
// # Notifications
//
// The top-level notify: section says where notifications go (see package
// notify and docs/notifications.md): webhook, slack and ntfy receivers (a URL,
// a mapping {url | url_env, secret_env (webhook), token_env (ntfy)}, or a list
// of them; an ntfy topic may be named alone), command (the notification's
// JSON on its standard input), desktop, the events told (checked against
// [target.Kinds]), rate_limit_after, timeout and retries (the built-in tier
// sets those three). It is not in [Config.Sources]: its URLs can be secrets.
// The run command's --notify adds receivers ([Overrides.Notify]).
//
// # Prompt parts
//
// A prompt part (preamble, observe, orient, decide, act, reviewer.prompt) is
//   - a string containing a newline: the template text itself;
//   - {text: "..."}: the template text itself, on one line or many;
//   - {file: PATH} or any other one-line string: a file, relative to the
//     directory of the configuration file that names it;
//   - "builtin:NAME/PHASE.md": a prompt embedded in the binary.
//
// Context entries are files relative to the work directory, or text (see
// package prompt for how the two are told apart).
//
// # Built-in procedures
//
// The built-in tier defines the procedures of [prompt.Builtins] (build,
// fix-tests) with max_iterations 10, agent claude, failure_threshold 3,
// feedback max_length 500, baseline on and git checkpoints on, so that
// `agentloop run` works with no file at all; fix-tests also escalates on
// test_tampering. A procedure of your own gets the build procedure's
// prompts for the parts it does not name, and without max_iterations runs
// until another limit stops it (0: unlimited).
//
// When no procedure is named, [Config.Procedure] uses `default:`, else the
// only procedure the files define, else the built-in "build".
package config
