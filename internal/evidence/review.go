package evidence

// Review verdicts.
const (
	VerdictApprove        = "approve"
	VerdictRequestChanges = "request_changes"
	VerdictReject         = "reject"
	VerdictUnknown        = "unknown"
)

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
