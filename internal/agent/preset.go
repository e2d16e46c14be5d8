package agent

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// Prompt channels of a [Preset].
const (
	PromptStdin = "stdin" // the prompt is written to the agent's stdin
	PromptArg   = "arg"   // the prompt is a command-line argument (after PromptFlag, if any)
	PromptFile  = "file"  // the prompt is written to a file whose path is passed
)

// PlaceholderPromptFile in an argument is replaced by the prompt file's path.
const PlaceholderPromptFile = "{prompt_file}"

// PlaceholderUsageLog in an argument is replaced by the path of a usage log the
// CLI writes (aider's --analytics-log); the [Runner] parses it after the run.
const PlaceholderUsageLog = "{usage_log}"

// Preset is a declarative record of how to run one AI coding CLI headless.
type Preset struct {
	Name       string   `json:"name" yaml:"name"`
	Binary     string   `json:"binary" yaml:"binary"`
	Args       []string `json:"args,omitempty" yaml:"args,omitempty"`
	PromptVia  string   `json:"prompt_via" yaml:"prompt_via"`                       // stdin | arg | file
	PromptFlag string   `json:"prompt_flag,omitempty" yaml:"prompt_flag,omitempty"` // e.g. "-p", "--message-file"
	// LongPromptOnStdin: a prompt given as an argument that is longer than
	// one argument can carry goes on stdin instead, which the CLI reads as
	// its prompt when no argument gives one.
	LongPromptOnStdin bool              `json:"long_prompt_on_stdin,omitempty" yaml:"-"`
	Format            string            `json:"format" yaml:"format"` // parser name, see [NewParser]
	Env               map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
	// RateLimitPatterns are extra regular expressions that mark a rate limit when
	// they match the CLI's stderr or its reported error text.
	RateLimitPatterns []string `json:"rate_limit_patterns,omitempty" yaml:"rate_limit_patterns,omitempty"`
	// Docs is one line on where the invocation comes from and what is unverified.
	Docs string `json:"docs,omitempty" yaml:"docs,omitempty"`
	// Tested is the CLI version the preset was last checked against, end to
	// end with the real CLI.
	Tested string `json:"tested,omitempty" yaml:"tested,omitempty"`
	// Install is how to install the CLI, for the message when it is missing.
	Install string `json:"install,omitempty" yaml:"install,omitempty"`
	// Failures recognise the CLI's own ways of failing (see failures.go); the
	// generic rules apply after them.
	Failures []Failure `json:"-" yaml:"-"`
	// Requires are settings the CLI cannot start without, checked before a run.
	Requires []Requirement `json:"-" yaml:"-"`
	// Sandbox is what the CLI needs inside a sandbox: its own folders under
	// $HOME and the hosts of its model API.
	Sandbox policy.Needs `json:"sandbox,omitzero" yaml:"-"`
	// Sandboxed, when set, is this agent's own sandbox configuration
	// (agents: NAME: sandbox: in agentloop.yaml): it runs in a sandbox, with
	// what it adds to the procedure's.
	Sandboxed *policy.Config `json:"-" yaml:"-"`
}

// Override is a field-by-field change to a preset from configuration. Empty
// fields keep the preset's value; a non-nil Args replaces the arguments.
type Override struct {
	Binary     string            `json:"binary,omitempty" yaml:"binary,omitempty"`
	Args       []string          `json:"args,omitempty" yaml:"args,omitempty"`
	ExtraArgs  []string          `json:"extra_args,omitempty" yaml:"extra_args,omitempty"`
	Env        map[string]string `json:"env,omitempty" yaml:"env,omitempty"`
	PromptVia  string            `json:"prompt_via,omitempty" yaml:"prompt_via,omitempty"`
	PromptFlag string            `json:"prompt_flag,omitempty" yaml:"prompt_flag,omitempty"`
	Format     string            `json:"format,omitempty" yaml:"format,omitempty"`
	Sandbox    *policy.Config    `json:"sandbox,omitempty" yaml:"sandbox,omitempty"`
}

// Merge returns p with o applied: binary, prompt channel, prompt flag and format
// replace, Args replaces when non-nil, ExtraArgs are appended, Env is merged
// (o wins). p itself is not changed.
func (p Preset) Merge(o Override) Preset {
	out := p
	out.Args = slices.Clone(p.Args)
	out.Env = maps.Clone(p.Env)
	out.RateLimitPatterns = slices.Clone(p.RateLimitPatterns)
	out.Failures = slices.Clone(p.Failures)
	out.Requires = slices.Clone(p.Requires)
	out.Sandbox = policy.Needs{Home: slices.Clone(p.Sandbox.Home), HomeEnv: slices.Clone(p.Sandbox.HomeEnv),
		Hosts: slices.Clone(p.Sandbox.Hosts), HostEnv: slices.Clone(p.Sandbox.HostEnv)}
	if o.Binary != "" {
		out.Binary = o.Binary
	}
	if o.Args != nil {
		out.Args = slices.Clone(o.Args)
	}
	out.Args = append(out.Args, o.ExtraArgs...)
	if len(o.Env) > 0 {
		if out.Env == nil {
			out.Env = make(map[string]string, len(o.Env))
		}
		maps.Copy(out.Env, o.Env)
	}
	if o.PromptVia != "" {
		out.PromptVia = o.PromptVia
	}
	if o.PromptFlag != "" {
		out.PromptFlag = o.PromptFlag
	}
	if o.Format != "" {
		out.Format = o.Format
	}
	if o.Sandbox != nil {
		c := *o.Sandbox
		out.Sandboxed = &c
	}
	return out
}

// Validate reports every problem with the preset at once.
func (p Preset) Validate() error {
	var errs []error
	if p.Binary == "" {
		errs = append(errs, fmt.Errorf("agent %q: no command: set cmd (or binary) to the program to run", p.Name))
	}
	switch p.PromptVia {
	case PromptStdin, PromptArg, PromptFile:
	default:
		errs = append(errs, fmt.Errorf("agent %q: prompt_via %q: want stdin, arg or file", p.Name, p.PromptVia))
	}
	if !slices.Contains(Formats(), p.Format) {
		errs = append(errs, fmt.Errorf("agent %q: format %q: want one of %s", p.Name, p.Format, strings.Join(Formats(), ", ")))
	}
	for _, pat := range p.RateLimitPatterns {
		if _, err := regexp.Compile(pat); err != nil {
			errs = append(errs, fmt.Errorf("agent %q: rate_limit_patterns: %w", p.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Command returns the argv that runs the preset with prompt, and what to write to
// its stdin. promptFile is the path the caller wrote the prompt to (used when the
// prompt goes by file or an argument names {prompt_file}).
func (p Preset) Command(prompt, promptFile string) (argv []string, stdin string) {
	argv = make([]string, 0, len(p.Args)+3)
	argv = append(argv, p.Binary)
	usesFile := false
	for _, a := range p.Args {
		if strings.Contains(a, PlaceholderPromptFile) {
			usesFile = true
			a = strings.ReplaceAll(a, PlaceholderPromptFile, promptFile)
		}
		argv = append(argv, a)
	}
	switch p.PromptVia {
	case PromptArg:
		if p.LongPromptOnStdin && len(prompt) > maxArgPrompt {
			return argv, prompt
		}
		if p.PromptFlag != "" {
			argv = append(argv, p.PromptFlag)
		}
		argv = append(argv, prompt)
	case PromptFile:
		if !usesFile {
			if p.PromptFlag != "" {
				argv = append(argv, p.PromptFlag)
			}
			argv = append(argv, promptFile)
		}
	default:
		stdin = prompt
	}
	return argv, stdin
}

// UsesUsageLog reports whether an argument names {usage_log}.
func (p Preset) UsesUsageLog() bool {
	return slices.ContainsFunc(p.Args, func(a string) bool { return strings.Contains(a, PlaceholderUsageLog) })
}

// Installed reports where the preset's binary is found by lookPath (exec.LookPath
// in production).
func Installed(p Preset, lookPath func(string) (string, error)) (path string, ok bool) {
	if p.Binary == "" || lookPath == nil {
		return "", false
	}
	path, err := lookPath(p.Binary)
	if err != nil {
		return "", false
	}
	return path, true
}
