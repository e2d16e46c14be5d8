package config

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/agentloop/agentloop/internal/yamlnode"
)

type file struct {
	path string
	must bool // an error when missing (--config)
	o    origin
}

func (o origin) path() string { return o.name }

// files lists the global and workspace files, in tier order.
func files(o Options) []file {
	var out []file
	dir := o.UserConfigDir
	if dir == "" {
		if x := o.Getenv("XDG_CONFIG_HOME"); x != "" {
			dir = x
		} else if h := o.Getenv("HOME"); h != "" {
			dir = filepath.Join(h, ".config")
		}
		if dir != "" {
			dir = filepath.Join(dir, "agentloop")
		}
	}
	if dir != "" {
		p := filepath.Join(dir, "config.yaml")
		out = append(out, file{path: p, o: origin{tier: "global", name: p, file: true, dir: dir}})
	}
	ws, must := o.ConfigFile, true
	if ws == "" {
		ws, must = WorkspaceFile, false
	}
	abs := ws
	if !filepath.IsAbs(ws) {
		abs = filepath.Join(o.WorkDir, ws)
	}
	og := origin{tier: "workspace", name: ws, file: true}
	if rel, err := filepath.Rel(o.WorkDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
		og.name = rel
	}
	if filepath.Dir(filepath.Clean(abs)) != filepath.Clean(o.WorkDir) {
		og.dir = filepath.Dir(abs)
	}
	return append(out, file{path: abs, must: must, o: og})
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// parse reads one YAML document; its top level must be a mapping.
func parse(data []byte, o origin) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e := &Error{Where: o.where(), Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		e.Line, e.Column = 1, 1
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = "not valid YAML: " + m[2]
		} else {
			// The parser names no line when it runs out of input looking for the
			// end of a construct: the problem shows at the last line.
			e.Line = max(1, strings.Count(strings.TrimRight(string(data), "\n"), "\n")+1)
		}
		if !o.file {
			e.Line, e.Column = 0, 0
		}
		return nil, e
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}, nil
	}
	root := doc.Content[0]
	if isNull(root) {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}, nil
	}
	if root.Kind != yaml.MappingNode {
		e := &Error{Where: o.where(), Msg: "expected a mapping of settings (default, defaults, procedures, agents, …), got " + yamlnode.Kind(root)}
		if o.file {
			e.Line, e.Column = root.Line, root.Column
		}
		return nil, e
	}
	return root, nil
}
