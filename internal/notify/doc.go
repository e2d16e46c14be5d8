// Package notify owns notifications: telling a person, wherever they are, that
// a loop needs them, finished, nears its budget, waits out a long rate limit,
// or that a task graph finished. It decides which events of a run call for a
// notification ([Of], [Watch]), what a notification says ([Notification], the
// versioned JSON body of docs/notifications.md), and delivers it to every
// receiver configured under notify: ([target.Config], the configuration's
// vocabulary in internal/notify/target): a generic webhook (the JSON body
// signed with HMAC-SHA256 in X-Agentloop-Signature-256), Slack-compatible
// incoming webhooks, ntfy topics, a command (the JSON on its standard input)
// and the desktop (notify-send, osascript) when there is one.
//
// Delivery never blocks or fails a loop: [Notifier.Send] returns at once, each
// receiver is tried in the background with a timeout per attempt and a bounded
// number of retries, and every delivery and every failure is recorded as an
// event of the run (notification_sent, notification_failed). What a
// notification carries is redacted as everything agentloop writes is
// (internal/redact). [Notifier.Close] waits, for a bounded time, for what is
// still under way when agentloop exits.
//
// The loop itself stays pure: notifications are taken from the events the
// environment records ([Watch.Event]), never sent from inside the loop.
package notify
