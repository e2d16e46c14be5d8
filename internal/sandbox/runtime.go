package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/sandbox/policy"
)

// runtimeDenies are the denied paths of a sandbox-runtime settings file,
// absolute, and the file they come from.
type runtimeDenies struct {
	file        string
	read, write []string
}

// readRuntime reads the sandbox-runtime settings file in.Config names (if
// any) and adds its allowed domains and writable paths to in.Config; its
// paths are resolved as sandbox-runtime does: ~ is $HOME, a relative path is
// in the command's folder. It returns the denied paths, for [runtimeDenies.deny].
func readRuntime(in *Input) (runtimeDenies, error) {
	if in.Config.Settings == "" {
		return runtimeDenies{}, nil
	}
	file := expandHome(in.Config.Settings, in.Home)
	b, err := os.ReadFile(file)
	if err != nil {
		return runtimeDenies{}, fmt.Errorf("sandbox settings: %w", err)
	}
	rt, err := policy.ParseRuntime(b)
	if err != nil {
		return runtimeDenies{}, fmt.Errorf("%s: %w", file, err)
	}
	abs := func(path string) string {
		if path = expandHome(path, in.Home); !filepath.IsAbs(path) {
			path = filepath.Join(in.Dir, path)
		}
		return resolve(path)
	}
	in.Config.Allow = append(in.Config.Allow, rt.Network.AllowedDomains...)
	for _, w := range rt.Filesystem.AllowWrite {
		in.Config.Write = append(in.Config.Write, abs(w))
	}
	d := runtimeDenies{file: file}
	for _, r := range rt.Filesystem.DenyRead {
		d.read = append(d.read, abs(r))
	}
	for _, w := range rt.Filesystem.DenyWrite {
		d.write = append(d.write, abs(w))
	}
	return d, nil
}

// deny makes p honour the denied paths: one denied writes within a writable
// folder is made read-only (bubblewrap protects it only if it exists); one
// denied reads must be hidden already (the sandbox hides $HOME), and one that
// is not is an error, as is a denied path that holds a writable one.
func (d runtimeDenies) deny(p *policy.Policy) error {
	for _, w := range d.write {
		for _, in := range p.Write {
			if within(in, w) && in != w {
				return fmt.Errorf("%s: denyWrite %s holds %s, which the sandbox keeps writable", d.file, w, in)
			}
		}
		if anyWithin(w, p.Write) {
			p.Protect = addUnique(p.Protect, w)
		}
	}
	for _, r := range d.read {
		open := !anyWithin(r, p.Hide) || anyWithin(r, p.Read) || anyWithin(r, p.Write)
		for _, in := range append(append([]string{}, p.Read...), p.Write...) {
			open = open || within(in, r)
		}
		if open {
			return fmt.Errorf("%s: denyRead %s: the sandbox lets the command read it (it hides only %v, but what it reads and writes there); remove it, or run without these settings", d.file, r, p.Hide)
		}
	}
	return nil
}
