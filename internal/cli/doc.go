// Package cli wires agentloop's commands (cobra) to the packages that do the
// work. Each command has a file cmd_<name>.go with an options struct that adds
// its flags (AddFlags) and a runX function that never sees cobra; cli builds the
// process's dependencies, resolves plans, calls the session package to run
// loops and task graphs, maps errors and outcomes to exit codes, handles
// signals, and prints what each command prints.
package cli
