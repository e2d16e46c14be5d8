// Package redact owns what counts as a secret in text agentloop did not write,
// and replaces it with a marker, so that nothing agentloop writes or shows —
// logs, state, events, reports, the terminal, the feedback that goes back into
// the next prompt, the model double's request log — carries a credential an
// agent or a gate printed.
//
// What counts as a secret:
//
//   - the credential shapes of gitleaks' default rule catalog (over two hundred:
//     cloud, source-hosting, payment, chat and AI providers' keys and tokens,
//     JWTs, private keys, keys named in assignments such as "api_key = …"),
//     translated at build time from a pinned gitleaks release by
//     `go generate` (gengitleaks; gitleaks_rules.go carries gitleaks' MIT
//     license), with gitleaks' semantics: keywords, the secret group, entropy
//     thresholds, allowlists of regexes and stopwords;
//   - what that catalog lacks ([ownRules]): the password of a URL
//     (https://user:pass@host), an AWS secret access key by the name next to
//     it, every kind of Anthropic key (Claude Code's OAuth token too), OpenAI
//     keys without the catalog's marker;
//   - a private key block over several lines, from its BEGIN line to its END
//     line, also when the lines come in separate writes;
//   - the values of the variables whose names say they hold a secret
//     ([SecretName]: *_API_KEY, *_TOKEN, *_SECRET, *PASSWORD*, …) in the
//     environments given to [New]: agentloop's own and those of the agent, the
//     reviewer and the gates.
//
// A shape is replaced by [Marker]; a variable's value by "[REDACTED:$NAME]".
//
// # Regular expressions without lookarounds
//
// Go's regexp (RE2) has no lookarounds and no backreferences, and neither has
// gitleaks (it compiles its catalog with the same package): none of the
// catalog's rules uses one, and gengitleaks refuses, naming the rule, a
// catalog in which a rule's expression does not compile. What a lookaround
// would say, the catalog says in RE2 terms, and each is kept here:
//
//   - a lookahead for the end of a secret is a consumed boundary,
//     (?:[\x60'"\s;]|\\[nr]|$), after the secret's group: only the group
//     is replaced, so the boundary character stays;
//   - a lookbehind for its start is \b, or a lead of name characters
//     ([\w.-]{0,50}?) before the rule's name;
//   - a negative lookahead ("not a placeholder", "not public_key") is an
//     allowlist: regexes on the secret, the match or the line, and stopwords;
//     both are applied as gitleaks applies them;
//   - a rule or allowlist on file paths cannot be applied to a stream, which
//     has none: the five rules that name a path (a PHP, Terraform, Kubernetes
//     or NuGet file) are applied to any text, the one on file names alone
//     (pkcs12-file) is left out, and allowlists that need a path are dropped
//     (more is redacted, never less). Each is written in its rule's Note.
//
// # Speed
//
// Every byte of every process's output goes through the redactor, so it runs
// a rule only where one of its keywords is: one pass of an Aho-Corasick
// automaton over all keywords (and the environment's values) finds them, four
// parts of the text at once; a rule whose matches start with its keyword runs
// anchored there, gitleaks' semi-generic rules ("…key… = value") run from their
// name after a byte-level check that an assignment and a long enough value
// follow, and the rest run on a window around the keyword. Expressions are
// compiled the first time their keyword is seen. bench/redact measures the
// writer against tee on 1 GiB.
//
// Redaction happens where outside text enters agentloop: internal/proc puts
// every child process's output through a [Writer], internal/gitx redacts the
// diffs it reads, internal/double its request log. Everything downstream works
// on redacted text, but JSON escapes a secret (& as \u0026, a quote as \")
// where a rule or a value no longer matches it: what is decoded from such
// output is redacted again once decoded, by whoever decodes it — the gate
// runner its parser's report (internal/engine), the agent runner the result,
// reasons and narration of a CLI's stream (internal/agent), the reviewer its
// verdict.
package redact
