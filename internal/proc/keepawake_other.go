//go:build !darwin

package proc

// KeepAwake does nothing here: only macOS's caffeinate is known
// ([ErrNoKeepAwake]).
func KeepAwake() (stop func(), err error) { return func() {}, ErrNoKeepAwake }

// KeepAwakeCommand is "": [KeepAwake] runs nothing here.
func KeepAwakeCommand() string { return "" }
