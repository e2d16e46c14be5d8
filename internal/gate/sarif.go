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

type sarifRule struct {
	ID                   string `json:"id"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
	MessageStrings map[string]struct {
		Text string `json:"text"`
	} `json:"messageStrings"`
}

// parseSARIF reads SARIF 2.1.0: results with ruleId, level, message and the first
// location (an artifact index is resolved through the run's artifacts). A result
// without a level takes its rule's default level, and "warning" when the rule has
// none (SARIF 2.1.0 §3.27.10); a message given by id is looked up in the rule's
// messageStrings.
func parseSARIF(br *bufio.Reader, c *collector) error {
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name  string      `json:"name"`
					Rules []sarifRule `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Artifacts []struct {
				Location struct {
					URI string `json:"uri"`
				} `json:"location"`
			} `json:"artifacts"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex *int   `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
					ID   string `json:"id"`
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
			rule := findRule(run.Tool.Driver.Rules, r.RuleIndex, r.RuleID)
			f := evidence.Finding{Kind: evidence.KindLint, Tool: run.Tool.Driver.Name, ID: r.RuleID, Message: r.Message.Text}
			if f.ID == "" && rule != nil {
				f.ID = rule.ID
			}
			if f.Message == "" && rule != nil && r.Message.ID != "" {
				f.Message = rule.MessageStrings[r.Message.ID].Text
			}
			level := r.Level
			if level == "" && rule != nil {
				level = rule.DefaultConfiguration.Level
			}
			switch level {
			case "error":
				f.Severity = evidence.SeverityError
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

// findRule returns the result's rule: by index into the driver's rules when it is
// given and valid, else by id; nil when neither names one.
func findRule(rules []sarifRule, index *int, id string) *sarifRule {
	if index != nil && *index >= 0 && *index < len(rules) {
		return &rules[*index]
	}
	for i := range rules {
		if id != "" && rules[i].ID == id {
			return &rules[i]
		}
	}
	return nil
}
