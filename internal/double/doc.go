// Package double owns the model double: a scripted stand-in for the model APIs
// that coding CLIs call (the Anthropic Messages API, the OpenAI Responses and
// Chat Completions APIs and the Gemini generateContent API, streaming and not),
// so a real CLI can be run end to end — editing files through its own tools —
// without a model and without spending money.
//
// Replies come from a [Scenario] (YAML): per turn of a conversation, text and
// tool calls, the usage to report, and faults (an HTTP error status with an
// optional retry-after, a stream cut mid-way, a reply that never ends). The turn
// is chosen by how many replies the conversation already holds, so retries of a
// request get the same turn, and each fresh CLI process starts at turn 0.
// Requests that declare no tools (titles, routing, token counts) are side
// requests and get a short generic reply. Every request is logged as one JSON
// line ([Record]) for assertions.
package double
