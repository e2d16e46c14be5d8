// Package policy holds the sandbox policy a user writes and an agent
// declares: what a person configured ([Config], `sandbox:` in
// agentloop.yaml), what an agent's CLI needs inside ([Needs], declared by
// each preset), the hosts of an allow-list ([Host], [ParseHost]), and the
// one value ([Policy]) that each backend — bubblewrap, Seatbelt — turns into
// its own form.
//
// It is pure data and its parsing and validation: it reads no file and runs
// nothing, so the packages that only name a sandbox's settings (the
// configuration, the agent presets) need not import the package sandbox,
// which makes the policy from the machine (sandbox.Build) and runs
// commands under it.
package policy
