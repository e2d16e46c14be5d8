//go:build windows

package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// batchSpecial are the characters cmd.exe reads as its own in a batch file's
// arguments, whatever their quotes: Go quotes an argument for the program's
// parser (CommandLineToArgvW), not for cmd.exe.
const batchSpecial = "%!^&|<>\"\r\n"

// commandLine is argv as Windows runs it. A PowerShell script (.ps1) runs
// through powershell -File. An npm command shim (claude.cmd) is not run
// through cmd.exe, which would read a prompt's & | % " as its own: its
// program (or interpreter and script) runs with the arguments. Another batch
// file (.cmd, .bat) runs, unless an argument holds what cmd.exe would read.
func commandLine(argv []string) ([]string, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return argv, nil // the start says it is missing
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ps1":
		return append([]string{"powershell.exe", "-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-File", path}, argv[1:]...), nil
	case ".cmd", ".bat":
		if b, err := os.ReadFile(path); err == nil && len(b) < 64<<10 {
			if prog, target, ok := npmShim(string(b)); ok {
				dir := filepath.Dir(path)
				target = filepath.Join(dir, target)
				if prog == "" {
					return append([]string{target}, argv[1:]...), nil
				}
				if local := filepath.Join(dir, prog+".exe"); fileExists(local) {
					prog = local
				}
				return append([]string{prog, target}, argv[1:]...), nil
			}
		}
		for _, a := range argv[1:] {
			if i := strings.IndexAny(a, batchSpecial); i >= 0 {
				return nil, fmt.Errorf("%s is a batch file and an argument holds %q, which cmd.exe would read as its own: "+
					"pass the prompt on stdin (prompt_via: stdin) or a file, or name the program the batch file runs", path, a[i:i+1])
			}
		}
	}
	return argv, nil
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}
