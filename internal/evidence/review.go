package evidence

import "strings"

// Review verdicts.
const (
	VerdictApprove        = "approve"
	VerdictRequestChanges = "request_changes"
	VerdictReject         = "reject"
	VerdictUnknown        = "unknown"
)

// ParseVerdict maps a verdict as a reviewer may spell it to the contract's
// value (VerdictApprove, VerdictRequestChanges, VerdictReject); "" when it is
// none of them.
func ParseVerdict(v string) string {
	switch strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(v))) {
	case "approve", "approved", "accept", "accepted", "lgtm", "pass":
		return VerdictApprove
	case "request_changes", "changes_requested", "request_change", "needs_revision", "needs_changes", "revise", "changes":
		return VerdictRequestChanges
	case "reject", "rejected", "fail", "block", "blocked":
		return VerdictReject
	}
	return ""
}

// DisplayVerdict is how a person sees a verdict: APPROVED, NEEDS_REVISION
// (request changes or reject) or UNKNOWN.
func DisplayVerdict(verdict string) string {
	switch ParseVerdict(verdict) {
	case VerdictApprove:
		return "APPROVED"
	case VerdictRequestChanges, VerdictReject:
		return "NEEDS_REVISION"
	}
	return "UNKNOWN"
}

// ReviewFinding is one concern the reviewer raised.
type ReviewFinding struct {
	ID       string `json:"id,omitempty" yaml:"id,omitempty"`
	Severity string `json:"severity" yaml:"severity"` // blocker | major | minor | nit
	File     string `json:"file,omitempty" yaml:"file,omitempty"`
	Line     int    `json:"line,omitempty" yaml:"line,omitempty"`
	Message  string `json:"msg" yaml:"msg"`
	FixHint  string `json:"fix_hint,omitempty" yaml:"fix_hint,omitempty"`
}

// Review is the reviewer agent's verdict.
type Review struct {
	Verdict    string          `json:"verdict"`
	Score      float64         `json:"score"` // 0–10
	Tags       []string        `json:"tags,omitempty"`
	Findings   []ReviewFinding `json:"findings,omitempty"`
	Confidence float64         `json:"confidence,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Usage      Usage           `json:"usage"`
	Round      int             `json:"round"`
}

// Approved reports whether the reviewer approved.
func (r Review) Approved() bool { return r.Verdict == VerdictApprove }
