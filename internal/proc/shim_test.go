package proc

import "testing"

// The shims are as npm's cmd-shim writes them (CRLF line ends).
const (
	shimHead = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n"
	shimNode = shimHead + "\r\nIF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n" +
		"endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & \"%_prog%\"  \"%dp0%\\node_modules\\@anthropic-ai\\claude-code\\cli.js\" %*\r\n"
	shimNative = shimHead + "\"%dp0%\\node_modules\\@openai\\codex\\bin\\codex.exe\"   %*\r\n"
)

func TestNpmShim(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, prog, target string
		ok                       bool
	}{
		{"node script", shimNode, "node", `node_modules\@anthropic-ai\claude-code\cli.js`, true},
		{"native program", shimNative, "", `node_modules\@openai\codex\bin\codex.exe`, true},
		{"interpreter arguments", shimHead + "\"%_prog%\" --harmony \"%dp0%\\cli.js\" %*\r\n", "", "", false},
		{"another batch file", "@echo off\r\nnode %~dp0\\cli.js %*\r\n", "", "", false},
		{"empty", "", "", "", false},
	}
	for _, tt := range tests {
		prog, target, ok := npmShim(tt.text)
		if prog != tt.prog || target != tt.target || ok != tt.ok {
			t.Errorf("%s: npmShim = %q, %q, %v; want %q, %q, %v", tt.name, prog, target, ok, tt.prog, tt.target, tt.ok)
		}
	}
}
