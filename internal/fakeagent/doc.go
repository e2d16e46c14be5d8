// Package fakeagent is a scriptable stand-in for an AI coding agent CLI, used by
// end-to-end tests (registered as "fakeagent" in testscript) and benchmarks
// (built from ./cmd/fakeagent).
//
// It reads the prompt from stdin (or --prompt-file F, or the last argument with
// --prompt-arg; other arguments are ignored, so presets may pass a real CLI's
// flags), saves it to $FAKEAGENT_DIR/prompt-N.txt, and runs the actions of its plan
// for call N. The call counter lives in $FAKEAGENT_DIR/calls (or next to the plan).
//
// A plan ($FAKEAGENT_PLAN or --plan F) is plain text: "#" starts a comment line,
// a header [1], [2-4], [1,3] or [*] starts the section for those calls (the first
// section that names the call wins, [*] otherwise; lines before any header belong
// to [*]). A header [failing NAME] names the calls whose prompt names the test
// NAME as failing, [prompt TEXT] those whose prompt holds TEXT; sections are
// tried in the order of the plan. One action a line:
//
//	print TEXT              TEXT and a newline to stdout
//	stderr TEXT             TEXT and a newline to stderr
//	printfile PATH          copy a file to stdout (a recorded stream-json transcript)
//	write PATH CONTENT      create or replace a file
//	append PATH CONTENT     append to a file
//	replace PATH OLD NEW    replace the first OLD in a file (exit 3 when absent)
//	delete PATH             remove a file
//	fixone PATH             fix the first "// BUG:" line of a Go file (see below)
//	solve PATH              fix what the prompt names (see below)
//	solveone PATH           the same, one fix at most
//	exit N                  stop with exit code N
//	sleep DURATION          time.ParseDuration syntax
//	waitfor PATH            wait until PATH exists (a test's go-ahead)
//	hang                    sleep forever
//	hang-stubborn           survive SIGTERM, then sleep forever; each SIGTERM
//	                        received appends our pid to $FAKEAGENT_DIR/sigterm
//	spawn-stubborn          start a child in our process group that ignores SIGTERM,
//	                        keeps stdout/stderr open and sleeps forever
//	flood BYTES             write BYTES (suffix K, M or G: binary units) of text
//	                        lines to stdout in 64 KiB chunks
//	flood-raw BYTES         the same without a newline
//	flood-deltas BYTES      a Claude stream-json transcript of about BYTES: text
//	                        deltas (stream_event records) in messages of 100,
//	                        each message's usage, then a result record
//	fetch URL               GET URL through the environment's HTTP_PROXY and print
//	                        the status and the first line of the body (fails on
//	                        an error or a status other than 2xx)
//	expect-prompt TEXT      exit 97 unless the prompt contains TEXT
//	reject-prompt TEXT      exit 98 if the prompt contains TEXT
//
// The last argument of an action takes the rest of the line, with \n, \t and \\
// escapes; other arguments are one word each, or a Go double-quoted string.
// Paths expand $VAR and are relative to the working directory. The pids of
// processes that hang are appended to $FAKEAGENT_DIR/pids, one per line.
// An unknown action or a malformed line exits 2 naming the line.
//
// fixone: a line of the form
//
//	CODE // BUG: OLD // FIX: NEW
//
// becomes CODE with its first OLD replaced by NEW, the markers removed. Each call
// fixes one such line; with none left it prints "fixone: nothing to fix".
//
// solve acts only on what its prompt says. The tests the prompt names as
// failing (agentloop's feedback items "TEST pkg.TestName (…)", go test's
// "--- FAIL: TestName", and sentences ending "fails there: …", "fixes this one
// failure first: …") select the lines
//
//	CODE // BUG(TestName): OLD // FIX: NEW
//
// to fix; when the prompt reports a broken build ("undefined: ", "[build
// failed]", a BUILD item) the lines carrying "// SETBACK" (a break the agent
// made) are removed first. A test whose bug has no such line cannot be fixed.
package fakeagent
