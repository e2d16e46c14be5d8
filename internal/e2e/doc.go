// Package e2e is the end-to-end tier: its tests run the agentloop binary with
// the real agent CLIs (Claude Code, Codex, Gemini CLI, opencode, Qwen Code,
// Copilot CLI), installed from npm at the versions the presets were tested
// with, against the model double (package double) on 127.0.0.1, on a small Go
// repository whose gate is the real `go test`. They check what a user sees: success with the
// tokens the double served, rate limits that clear and that do not, a bad key,
// a CLI that refuses to start, Ctrl-C during a tool call, a reply stream cut
// mid-way, a reply that never ends, and a reviewer that is a second real CLI.
//
// The tests need AGENTLOOP_E2E_CLIS, the npm prefix the CLIs are installed in
// (.ci/run installs them and sets it). Without it they skip, and fail when
// CI=true. With AGENTLOOP_E2E_CAPTURE=DIR each CLI run's stdout, stderr and exit
// code are also written under DIR, to be kept as parser fixtures.
package e2e
