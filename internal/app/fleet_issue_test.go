//go:build temporal

package app

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestIssuesRefusedOnTheFleet: run --issue and serve on the Temporal engine
// say they run on the local engine for now, before anything is read or
// written, rather than run without their progress comment.
func TestIssuesRefusedOnTheFleet(t *testing.T) {
	var f Fleet
	_, err := RunIssue(context.Background(), &f, Process{}, IssueOptions{Ref: "o/r#1"})
	var u *UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "--engine local") {
		t.Errorf("RunIssue on the fleet = %v, want a usage error naming --engine local", err)
	}
	_, err = ServeIssues(context.Background(), &f, Process{}, ServeIssuesOptions{})
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "--engine local") {
		t.Errorf("ServeIssues on the fleet = %v, want a usage error naming --engine local", err)
	}
}
