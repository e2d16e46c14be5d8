// Package target holds the notifications a user configures, checked at load:
// the receivers they go to (webhooks, Slack, ntfy topics, commands, the
// desktop: [Config], [Endpoint], written on the command line as [Syntax]
// says), the kinds of notification told ([Kind], [Kinds]), and the tuning of
// delivery with its defaults. It is the vocabulary of notify: in a
// configuration file and of --notify, shared by internal/config, which reads
// it, internal/plan, which carries it, and internal/notify, which delivers.
//
// It imports no package of agentloop: what a user writes is checked without
// the events, state and delivery that internal/notify needs to send.
package target
