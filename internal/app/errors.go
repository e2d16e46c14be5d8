package app

// UsageError is a mistake the person must fix before running again: in the
// command line, the configuration, the task file or the run's name.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }
