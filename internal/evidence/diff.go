package evidence

// DiffFacts describes how an iteration changed the work tree.
type DiffFacts struct {
	Hash             string    `json:"hash,omitempty"`      // of the normalized diff against the iteration's start
	TreeHash         string    `json:"tree_hash,omitempty"` // of the resulting work tree: same code state, same hash
	Files            []string  `json:"files,omitempty"`
	Added            int       `json:"added"`
	Deleted          int       `json:"deleted"`
	TestFilesChanged []string  `json:"test_files_changed,omitempty"`
	TestFilesDeleted []string  `json:"test_files_deleted,omitempty"`
	SkipsAdded       int       `json:"skips_added,omitempty"`
	AssertsRemoved   int       `json:"asserts_removed,omitempty"`
	TestsRemoved     []string  `json:"tests_removed,omitempty"` // the tests whose declaration was removed, by name
	ProtectedTouched []string  `json:"protected_touched,omitempty"`
	OutsideScope     []string  `json:"outside_scope,omitempty"`
	NewDeps          []string  `json:"new_deps,omitempty"`
	ExportedChanged  []string  `json:"exported_changed,omitempty"` // exported symbols added, removed or changed
	SecretsFound     int       `json:"secrets_found,omitempty"`
	Tamper           []Finding `json:"tamper,omitempty"` // the test-tampering findings, with where
	// SinceStart are the facts of the diff from the run's start to the same
	// tree: what the run as a whole did to the tests, which an iteration that
	// changes nothing after one that deleted them does not show. Nil when the
	// iteration's diff is the run's (its first).
	SinceStart *DiffFacts `json:"since_start,omitempty"`
}

// Empty reports whether the iteration changed nothing.
func (d DiffFacts) Empty() bool { return len(d.Files) == 0 && d.Added == 0 && d.Deleted == 0 }
