package app

import (
	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/plan"
)

// PlanOptions are how a procedure resolves into everything a run needs.
type PlanOptions struct {
	// Load loads the configuration, with the flags given.
	Load func() (*config.Config, error)
	// Name is the procedure's ("": the default one).
	Name    string
	WorkDir string
	Getenv  func(string) string
	Verbose bool
}

// ResolvePlan loads the configuration and resolves the named procedure into
// everything a run needs; a procedure that does not resolve is a usage error.
func ResolvePlan(o PlanOptions) (*plan.Plan, error) {
	cfg, err := o.Load()
	if err != nil {
		return nil, err
	}
	p, err := plan.Resolve(cfg, o.Name, plan.Options{WorkDir: o.WorkDir, Getenv: o.Getenv, Verbose: o.Verbose})
	if err != nil {
		return nil, &UsageError{err}
	}
	return p, nil
}
