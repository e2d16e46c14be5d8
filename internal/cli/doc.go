// Package cli wires agentloop's commands (cobra) to the packages that do the
// work. Each command has a file cmd_<name>.go with an options struct that adds
// its flags (AddFlags) and a runX function that never sees cobra; cli builds the
// process's dependencies, resolves plans, chooses the engine once
// ([chooseEngine]: the local one, or the Temporal one, which a build with the
// tag temporal adds through temporal.go, with its worker command) and calls
// the application ([app.Engine]) to run, resume and read loops and task
// graphs; it maps errors and outcomes to exit codes, handles signals, and
// prints what each command prints.
package cli
