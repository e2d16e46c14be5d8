package engine

import (
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/loop"
)

// markdowner is a report that renders itself as Markdown.
type markdowner interface{ Markdown() string }

// WriteEscalation writes escalation.md and escalation.yaml in the run folder.
func WriteEscalation(runDir string, e loop.Escalation) error {
	var md string
	if m, ok := e.Report.(markdowner); ok {
		md = m.Markdown()
	} else {
		md = plainEscalation(e)
	}
	if err := writeFile(filepath.Join(runDir, "escalation.md"), []byte(md)); err != nil {
		return err
	}
	doc := any(e)
	if e.Report != nil {
		doc = e.Report
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode the escalation report: %w", err)
	}
	return writeFile(filepath.Join(runDir, "escalation.yaml"), b)
}

func plainEscalation(e loop.Escalation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Escalation\n\n**Reason:** %s\n\n", e.Reason)
	if e.Question != "" {
		fmt.Fprintf(&b, "## Question\n\n%s\n\n", e.Question)
	}
	if len(e.Options) > 0 {
		b.WriteString("## Options\n\n")
		for i, o := range e.Options {
			fmt.Fprintf(&b, "%d. %s\n", i+1, o)
		}
	}
	return b.String()
}
