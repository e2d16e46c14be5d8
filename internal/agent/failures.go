package agent

import (
	"regexp"
	"slices"
	"sync"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Failure recognises one way a CLI fails, from its exit code and its own words,
// and says what the person should do about it.
type Failure struct {
	Outcome evidence.AgentOutcome
	// Exits are the exit codes that mean this outcome; none: any non-zero exit.
	Exits []int
	// Match is matched against the CLI's error text (the error its result
	// records reported, then the tail of its stderr); nil: the exit code alone.
	Match *regexp.Regexp
	// Fix is what to set or install, for people.
	Fix string
}

// matches reports whether the rule recognises a failed run. A rule that only
// matches words never stops a run that got work done (tokens were spent): the
// words may come from the agent's tools, not from the CLI.
func (f Failure) matches(exitCode int, text string, workDone bool) bool {
	if len(f.Exits) > 0 && !slices.Contains(f.Exits, exitCode) {
		return false
	}
	if f.Match == nil {
		return len(f.Exits) > 0
	}
	if len(f.Exits) == 0 && workDone && f.Outcome.Fatal() {
		return false
	}
	return f.Match.MatchString(text)
}

// The tables below are what each CLI prints and how it exits when it cannot
// work, learned from its source and from runs of the real CLI against a local
// model server (testdata/PROVENANCE.md says which).

var claudeFailures = sync.OnceValue(func() []Failure {
	return []Failure{
		{Outcome: evidence.OutcomeRefused, Match: regexp.MustCompile(`(?i)cannot be used with root/sudo privileges`),
			Fix: "Claude Code refuses --dangerously-skip-permissions as root: run agentloop as another user, or, in a container or VM, set IS_SANDBOX=1 in the agent's env"},
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)invalid api key|not logged in|please run /login|authentication_failed|oauth token (has expired|revoked)|billing_error|credit balance is too low`),
			Fix: "set ANTHROPIC_API_KEY (or run 'claude /login' once); with ANTHROPIC_BASE_URL check the server accepts the key"},
		{Outcome: evidence.OutcomeRefused, Match: regexp.MustCompile(`(?i)error: (unknown option|too many arguments)|requires --verbose`),
			Fix: "check the agent's args and extra_args against 'claude --help'"},
	}
})

var codexFailures = sync.OnceValue(func() []Failure {
	return []Failure{
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)401 Unauthorized|403 Forbidden|Incorrect API key provided|invalid_api_key|Missing environment variable|not logged in|login required`),
			Fix: "set OPENAI_API_KEY or CODEX_API_KEY (or run 'codex login'); for another provider check model_provider and its env_key in $CODEX_HOME/config.toml"},
		{Outcome: evidence.OutcomeRateLimited, Match: regexp.MustCompile(`(?i)exceeded retry limit, last status: 429|429 Too Many Requests`)},
		{Outcome: evidence.OutcomeTransient, Match: regexp.MustCompile(`(?i)exceeded retry limit, last status: 5\d\d`)},
		{Outcome: evidence.OutcomeRefused, Exits: []int{2}, Match: regexp.MustCompile(`(?i)error: (unexpected argument|invalid value|unrecognized subcommand)`),
			Fix: "check the agent's args and extra_args against 'codex exec --help'"},
	}
})

var geminiFailures = sync.OnceValue(func() []Failure {
	return []Failure{
		{Outcome: evidence.OutcomeAuth, Exits: []int{41},
			Fix: "set GEMINI_API_KEY and, in ~/.gemini/settings.json, security.auth.selectedType: gemini-api-key (or run gemini once to log in)"},
		{Outcome: evidence.OutcomeRefused, Exits: []int{55},
			Fix: "gemini does not trust the folder: set GEMINI_CLI_TRUST_WORKSPACE=true in the agent's env, or trust the folder in gemini once"},
		{Outcome: evidence.OutcomeRefused, Exits: []int{42},
			Fix: "gemini got no prompt: check the agent's prompt_via and args"},
		{Outcome: evidence.OutcomeRefused, Exits: []int{44},
			Fix: "gemini's sandbox could not start: check its sandbox settings, or leave --sandbox out of the agent's args"},
		{Outcome: evidence.OutcomeAuth, Exits: []int{52},
			Fix: "gemini's configuration is invalid: check ~/.gemini/settings.json and .gemini/settings.json"},
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)API key not valid|API_KEY_INVALID|UNAUTHENTICATED|PERMISSION_DENIED|\b401\b|\b403\b`),
			Fix: "set GEMINI_API_KEY to a valid key; with GOOGLE_GEMINI_BASE_URL check the server accepts it"},
	}
})

var opencodeFailures = sync.OnceValue(func() []Failure {
	return []Failure{
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)"statusCode"\s*:\s*40[13]\b|Unauthorized|invalid api key|incorrect api key|API key .*(missing|invalid)`),
			Fix: "set the provider's API key ('opencode auth login', or the provider's key in opencode.json or its env var)"},
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)ProviderModelNotFoundError|ProviderInitError|model not found`),
			Fix: "check the model and provider in opencode.json (or the -m argument)"},
	}
})

var qwenFailures = sync.OnceValue(func() []Failure {
	return []Failure{
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)401|invalid api key|incorrect api key|no auth type is selected|set an auth method`),
			Fix: "set OPENAI_API_KEY (and OPENAI_BASE_URL, OPENAI_MODEL) and security.auth.selectedType: openai in ~/.qwen/settings.json"},
		{Outcome: evidence.OutcomeRefused, Exits: []int{55},
			Fix: "qwen does not trust the folder: trust it once, or set the folder trust setting in ~/.qwen/settings.json"},
	}
})

// genericFailures apply to every CLI after its own table: a shell that cannot
// find or run the program, and the HTTP 401/403 wording common to providers.
var genericFailures = sync.OnceValue(func() []Failure {
	return []Failure{
		{Outcome: evidence.OutcomeNotInstalled, Exits: []int{127}, Match: regexp.MustCompile(`(?i)not found|no such file`),
			Fix: "install the agent's program or fix the agent's cmd"},
		{Outcome: evidence.OutcomeRefused, Exits: []int{126},
			Fix: "the agent's program is not executable: check its permissions or the agent's cmd"},
		{Outcome: evidence.OutcomeAuth, Match: regexp.MustCompile(`(?i)\b401\b[^\n]{0,40}unauthori[sz]ed|unauthori[sz]ed[^\n]{0,40}\b401\b|"status(Code)?"\s*:\s*40[13]\b|\b403 Forbidden\b|invalid[ _-]?api[ _-]?key|incorrect api key|authentication_(failed|error)|authentication failed[^\n]{0,80}\(HTTP 40[13]\)`),
			Fix: "check the agent's API key and provider settings"},
	}
})

// failuresFor is the table of the named built-in preset.
func failuresFor(preset string) []Failure {
	switch preset {
	case "claude":
		return claudeFailures()
	case "codex":
		return codexFailures()
	case "gemini":
		return geminiFailures()
	case "opencode":
		return opencodeFailures()
	case "qwen":
		return qwenFailures()
	}
	return nil
}
