package gate

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/agentloop/agentloop/internal/evidence"
)

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI   string `json:"uri"`
			Index *int   `json:"index"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// parseSARIF reads SARIF 2.1.0: results with ruleId, level, message and the first
// location (an artifact index is resolved through the run's artifacts).
func parseSARIF(br *bufio.Reader, c *collector) error {
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
			Artifacts []struct {
				Location struct {
					URI string `json:"uri"`
				} `json:"location"`
			} `json:"artifacts"`
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations    []sarifLocation   `json:"locations"`
				Suppressions []json.RawMessage `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.NewDecoder(io.LimitReader(skipToJSON(br), MaxDocument)).Decode(&doc); err != nil {
		return err
	}
	c.parsed = true
	for _, run := range doc.Runs {
		for _, r := range run.Results {
			if len(r.Suppressions) > 0 {
				continue
			}
			f := evidence.Finding{Kind: evidence.KindLint, Tool: run.Tool.Driver.Name, ID: r.RuleID, Message: r.Message.Text}
			switch r.Level {
			case "error":
			case "note", "none":
				f.Severity = evidence.SeverityInfo
			default: // SARIF's default level is warning
				f.Severity = evidence.SeverityWarning
			}
			if len(r.Locations) > 0 {
				pl := r.Locations[0].PhysicalLocation
				f.File = pl.ArtifactLocation.URI
				if i := pl.ArtifactLocation.Index; f.File == "" && i != nil && *i >= 0 && *i < len(run.Artifacts) {
					f.File = run.Artifacts[*i].Location.URI
				}
				f.Line, f.Col = pl.Region.StartLine, pl.Region.StartColumn
			}
			if c.opt.Tool != "" {
				f.Tool = c.opt.Tool
			}
			c.add(f)
		}
	}
	return nil
}
