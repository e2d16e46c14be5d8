package harness

import (
	"bufio"
	"encoding/json"
	"os"
)

// State is what the checks read of a run's state file.
type State struct {
	Status   string `json:"status"`
	RunID    string `json:"run_id"`
	Attempts int    `json:"attempts"`
	Segment  int    `json:"segment"`
	Tree     string `json:"tree"`
	WorkDir  string `json:"work_dir"`
	Best     *struct {
		Ref string `json:"ref"`
		Seq int    `json:"seq"`
	} `json:"best"`
	Spend struct {
		Usage Usage `json:"usage"`
	} `json:"spend"`
	Logged struct {
		History     int `json:"history"`
		Interrupted int `json:"interrupted"`
		Handoffs    int `json:"handoffs"`
	} `json:"logged"`
	Raw []byte `json:"-"` // the file as read
}

// Usage is an attempt's or a run's spend.
type Usage struct {
	In          int64   `json:"input_tokens"`
	Out         int64   `json:"output_tokens"`
	Cost        float64 `json:"cost_usd"`
	TokensKnown bool    `json:"tokens_known"`
	CostKnown   bool    `json:"cost_known"`
}

// ReadState reads a state file; a missing one is the zero state.
func ReadState(path string) (State, error) {
	var st State
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Raw = b
	return st, json.Unmarshal(b, &st)
}

// Attempt is a record or a cut attempt of a run's history.
type Attempt struct {
	Seq        int    `json:"seq"`
	Usage      Usage  `json:"usage"`
	Checkpoint string `json:"checkpoint"` // a record's
	Start      string `json:"start"`      // a cut's
	Cut        string `json:"cut"`
}

// Handoff is a hand-off of a run's history.
type Handoff struct {
	Kind       string `json:"kind"`
	Text       string `json:"text"`
	Checkpoint string `json:"checkpoint"`
}

// History is a run's history.jsonl as agentloop reads it: by kind and
// index, the last entry of an index winning.
type History struct {
	Records, Cuts map[int]Attempt
	Handoffs      map[int]Handoff
	Bad           int // lines that do not parse
}

// ReadHistory reads a run folder's history.jsonl; a missing one is empty.
func ReadHistory(path string) (History, error) {
	h := History{Records: map[int]Attempt{}, Cuts: map[int]Attempt{}, Handoffs: map[int]Handoff{}}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Kind string          `json:"kind"`
			I    int             `json:"i"`
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			h.Bad++
			continue
		}
		switch e.Kind {
		case "record", "cut":
			var a Attempt
			if json.Unmarshal(e.Data, &a) != nil {
				h.Bad++
				continue
			}
			if e.Kind == "record" {
				h.Records[e.I] = a
			} else {
				h.Cuts[e.I] = a
			}
		case "handoff":
			var ho Handoff
			if json.Unmarshal(e.Data, &ho) != nil {
				h.Bad++
				continue
			}
			h.Handoffs[e.I] = ho
		}
	}
	return h, sc.Err()
}
