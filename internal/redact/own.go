package redact

// ownRules are the credentials gitleaks' catalog has no rule for, or a rule too
// narrow for what agentloop's own agents print. Each has the same semantics as
// a catalog rule.
var ownRules = []ruleSpec{
	// The password of a URL: https://user:pass@host, postgres://u:p@db/x. The
	// user stays; a value that is a reference (${X}, $X, {{x}}, %s) is no secret.
	{ID: "url-password", Regex: `://[^\s:@/?#"'<>\x60]+:([^\s@/?#"'<>\x60]{3,})@[a-zA-Z0-9.\[\]-]`,
		Keywords: []string{"://"},
		Allow:    []allowSpec{{Regexes: []string{`^(?:\$|\{\{|%[sv]|\*+$|x+$|<)`}}}},
	// An AWS secret access key: 40 base64 characters, known by what names it
	// (an access key id alone is found by the catalog's aws-access-token),
	// its quotes escaped too (\", in JSON: go test -json's output, a CLI's
	// stream).
	{ID: "aws-secret-access-key", Regex: `(?i)(?:aws_?secret_?(?:access_?)?key(?:_?id)?|secret_?access_?key|aws_?secret)(?:\\?["'])?\s*(?:=|:|=>|,)\s*(?:\\?["'])?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		Entropy: 3.5, Keywords: []string{"aws_secret", "awssecret", "secret_access", "secretaccess"}},
	// Every kind of Anthropic key (sk-ant-api03-, -admin01-, -oat01-, -ort01-):
	// the catalog knows the API and admin keys, Claude Code signs in with an
	// OAuth token.
	{ID: "anthropic-key", Regex: `\b(sk-ant-[a-z]{3,6}[0-9]{2}-[A-Za-z0-9_-]{40,})`, Keywords: []string{"sk-ant-"}},
	// The OpenAI key shapes before and beside the catalog's (sk-..., without
	// its T3BlbkFJ marker): a long run after sk-, sk-proj-, sk-svcacct-.
	{ID: "openai-key", Regex: `\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{40,})`, Entropy: 3.5, Keywords: []string{"sk-"}},
}

// ownGlobal lets through, in any rule, what gitleaks skips by file name and a
// stream can only know by its shape: a line of go.sum (a module's hash, which
// the generic rule takes for a key after "…token… v1.2.3 h1:"), in a diff too.
var ownGlobal = []allowSpec{
	{Target: "line", Regexes: []string{`^[+\- ]?\S+ v\S+ h1:[A-Za-z0-9+/]{43}=\s*$`}},
}
