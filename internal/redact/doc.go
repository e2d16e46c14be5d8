// Package redact owns what counts as a secret in text agentloop did not write:
// the shapes of well-known credentials (Anthropic, OpenAI, GitHub, AWS, Slack,
// Google, Stripe, GitLab, npm keys, private key blocks) and the values of the
// variables in agentloop's environment whose names say they hold one
// (*_API_KEY, *_TOKEN, *_SECRET, *PASSWORD*, …). A [Redactor] replaces them
// with a marker that says a value was redacted, so that nothing agentloop
// writes or shows — logs, state, events, reports, the terminal, the feedback
// that goes back into the next prompt — carries a credential an agent or a gate
// printed.
//
// Redaction happens where outside text enters agentloop: internal/proc puts
// every child process's output through a [Writer], and internal/gitx redacts the
// diffs it reads. Everything downstream works on redacted text.
package redact
