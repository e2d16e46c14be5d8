package tasks

import (
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/budget"
)

// Task is one unit of work of a task graph: a loop of its own.
type Task struct {
	ID        string   `json:"id"`
	Title     string   `json:"title,omitempty"`
	Prompt    string   `json:"prompt,omitempty"`    // inline task text, or
	Procedure string   `json:"procedure,omitempty"` // a procedure of the configuration
	DependsOn []string `json:"depends_on,omitempty"`
	Gates     []Gate   `json:"gates,omitempty"`  // replaces the procedure's gates when set
	Limits    *Limits  `json:"limits,omitempty"` // overrides the procedure's limits field by field
	Files     []string `json:"files,omitempty"`  // globs of the files in scope
	// Done marks a task already done (a ticked Markdown item): it counts as
	// succeeded without running.
	Done bool `json:"done,omitempty"`
	// Notes are the nested items under a Markdown checklist item.
	Notes []string `json:"notes,omitempty"`
	// Pos is where the task is written (for errors, and for [TickMarkdown]).
	Pos Pos `json:"pos"`
}

// Gate is a task's gate override, the same shape as a procedure's gate.
type Gate struct {
	Name             string        `json:"name"`
	Run              string        `json:"run"`
	Format           string        `json:"format,omitempty"`
	Timeout          time.Duration `json:"timeout,omitempty"`
	Required         *bool         `json:"required,omitempty"` // nil: required
	TolerateBaseline bool          `json:"tolerate_baseline,omitempty"`
	Rerun            string        `json:"rerun,omitempty"` // failed, whole or off ("": failed)
}

// Limits is a task's override of the procedure's limits; zero fields are unset.
type Limits struct {
	budget.Limits
	TokenBudget int64 `json:"token_budget,omitempty"`
}

// File is a parsed task file.
type File struct {
	Path     string        `json:"path"`
	Tasks    []Task        `json:"tasks"`
	Parallel int           `json:"parallel,omitempty"` // 0: the caller's default
	Budget   budget.Limits `json:"budget"`             // over every task: max_cost_usd and max_tokens
}

// Pos is a position in a source file (1-based).
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// PosError is a problem at a place in a task file.
type PosError struct {
	Pos Pos
	Msg string
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Msg }

func errAt(p Pos, format string, args ...any) error {
	return &PosError{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// Text is the task's instructions: the prompt, or the title and its notes.
func (t Task) Text() string {
	if t.Prompt != "" {
		return t.Prompt
	}
	s := t.Title
	for _, n := range t.Notes {
		s += "\n- " + n
	}
	return s
}
