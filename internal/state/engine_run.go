package state

// EngineRun is a run as another engine knows it (a Temporal server), for
// clean to weigh what the run keeps here.
type EngineRun struct {
	Name, RunID string
	// Live says the run goes on there (or waits for a person in it): nothing
	// of it is touched.
	Live bool
	// Status is how it ended when it is not live.
	Status Status
}
