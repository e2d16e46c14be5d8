// Package cli is agentloop's face: it wires its commands (cobra) to the
// application, package app, which does the work; no rule lives here. Each
// command has a file cmd_<name>.go with an options struct that adds its flags
// (AddFlags) and a runX function that never sees cobra and calls app; cli
// builds the process's dependencies, fills the configuration's
// overrides from the flags, chooses the engine once ([chooseEngine]: the local
// one, or the Temporal one, which a build with the tag temporal adds through
// temporal.go, with its worker command) and calls the application
// ([app.Engine]) to run, resume and read loops and task graphs; it turns
// errors into exit codes ([app.ExitStatus], [app.IsSetup]), handles signals,
// and renders what each command prints (packages report, ui, watch).
package cli
