// Package runname is what a person may call a run, a task graph or a run id:
// names that become file, folder and branch names, checked once, here, by
// every package that takes one.
package runname

import (
	"fmt"
	"strings"
)

// maxNameLen bounds a run name so paths stay reasonable.
const maxNameLen = 64

// Check reports whether name can name a run (or a run id): it becomes a file
// and directory name, so it must be 1 to 64 letters, digits, '.', '_' or '-',
// start with a letter or digit, and hold no "..".
func Check(name string) error {
	const allowed = "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
	if name == "" {
		return fmt.Errorf("invalid name: empty; %s", allowed)
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("invalid name %q: longer than %d bytes; %s", name, maxNameLen, allowed)
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("invalid name %q: contains \"..\"; %s", name, allowed)
	}
	pos := 0 // of the character, counted from 1 as an editor counts columns
	for i, r := range name {
		pos++
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if alnum || i > 0 && (r == '.' || r == '_' || r == '-') {
			continue
		}
		return fmt.Errorf("invalid name %q: character %q at position %d; %s", name, r, pos, allowed)
	}
	return nil
}
