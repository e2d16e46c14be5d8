package double

import (
	"fmt"
	"os"
)

// Scenario is what the double replies. In YAML:
//
//	model: double-1            # the model name replies carry (default: the requested one)
//	fault: {status: 401}       # optional: every request, side requests included, gets this
//	turns:
//	  - shell: "sed -i 's/a/b/' x.go"   # a call of whichever shell tool the CLI declares
//	    usage: {input: 1200, output: 40}
//	  - fault: {status: 429, retry_after: 2, count: 1}  # the first request of this turn gets 429
//	    text: "Done: x.go fixed."
//	    usage: {input: 1500, cached: 1000, output: 12}
//	  - fault: {usage_limit: 60}  # the account is at its usage limit for 60 s from this turn's first request
//	final: "Done."             # the reply after the last turn (default "Done.")
//	side: "ok"                 # the reply to side requests (no tools declared)
//	side_usage: {input: 10, output: 2}
type Scenario struct {
	Model     string `yaml:"model"`
	Fault     *Fault `yaml:"fault"`
	Turns     []Turn `yaml:"turns"`
	Final     string `yaml:"final"`
	Side      string `yaml:"side"`
	SideUsage *Usage `yaml:"side_usage"`
}

// Turn is one reply of a conversation: text, then tool calls.
type Turn struct {
	Text string `yaml:"text"`
	// Shell is a command for the CLI's own shell tool (Bash, run_shell_command,
	// bash, shell, exec_command, …), whichever the request declares.
	Shell string `yaml:"shell"`
	// Write is a file for the CLI's own write tool (Write, write_file, write);
	// CLIs without one get it as a shell command.
	Write *WriteFile `yaml:"write"`
	// Calls are tool calls given as is. A call whose tool the request does not
	// declare is left out, so one turn can name each CLI's tool.
	Calls []Call `yaml:"calls"`
	Usage *Usage `yaml:"usage"`
	Fault *Fault `yaml:"fault"`
}

// WriteFile is a file to write through the CLI's tool.
type WriteFile struct {
	Path    string `yaml:"path"`
	Content string `yaml:"content"`
}

// Call is one tool call with its arguments.
type Call struct {
	Name string         `yaml:"name"`
	Args map[string]any `yaml:"args"`
}

// Usage is what a reply reports. Input counts every prompt token, Cached and
// CacheWrite included; each API gets it in its own shape (Anthropic's
// input_tokens leaves out the cache, OpenAI's and Gemini's include it).
type Usage struct {
	Input      int `yaml:"input" json:"input"`
	Output     int `yaml:"output" json:"output"`
	Cached     int `yaml:"cached" json:"cached,omitempty"`
	CacheWrite int `yaml:"cache_write" json:"cache_write,omitempty"`
	Reasoning  int `yaml:"reasoning" json:"reasoning,omitempty"`
}

// Fault is a failure the double serves instead of (or in the middle of) a reply.
type Fault struct {
	// Status is an HTTP status: 429, 401, 403, 500, 529, …
	Status int `yaml:"status"`
	// RetryAfter is sent as the retry-after header, in seconds, when above 0.
	RetryAfter int `yaml:"retry_after"`
	// Message replaces the API's usual error message.
	Message string `yaml:"message"`
	// Cut sends part of a streamed reply, then breaks the connection.
	Cut bool `yaml:"cut"`
	// Hang sends the headers (and, streamed, the first event), then nothing
	// more until the client goes away.
	Hang bool `yaml:"hang"`
	// Count is how many requests get the fault, after which the turn replies
	// normally; 0 is every request.
	Count int `yaml:"count"`
	// UsageLimit is the account's usage limit, reached: from the first
	// request that meets the fault, every request for UsageLimit seconds gets
	// the API's own usage-limit reply (a 429 that carries the reset time, as
	// Anthropic's subscription and OpenAI's ChatGPT backends send it, so each
	// CLI prints its real message); after the reset the turn replies normally.
	UsageLimit int `yaml:"usage_limit"`
}

// LoadScenario reads a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the scenario: %w", err)
	}
	return ParseScenario(path, b)
}

func (w WriteFile) problem() string {
	if w.Path == "" {
		return "a write needs a path"
	}
	return ""
}

func (c Call) problem() string {
	if c.Name == "" {
		return "a call needs a name: the tool to call"
	}
	return ""
}

func (f Fault) problem() string {
	switch {
	case f.UsageLimit < 0:
		return "a fault's usage_limit (seconds until the reset) cannot be negative"
	case f.UsageLimit > 0 && (f.Status != 0 && f.Status != 429 || f.Cut || f.Hang || f.Count != 0):
		return "a usage_limit fault is a 429 until the reset: give it no other status, cut, hang or count"
	case f.Status == 0 && !f.Cut && !f.Hang && f.UsageLimit == 0:
		return "a fault needs a status, cut, hang or usage_limit"
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Sprintf("fault status %d is not an HTTP error status (400-599)", f.Status)
	case f.Count < 0 || f.RetryAfter < 0:
		return "a fault's count and retry_after cannot be negative"
	}
	return ""
}
