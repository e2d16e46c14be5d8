package report

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// browser is headless Chromium driven over the DevTools protocol on the pipe
// Chromium opens with --remote-debugging-pipe (it reads commands on fd 3 and
// writes replies and events on fd 4, each message a JSON object ended by a NUL
// byte). The protocol needs no more than this; a client library would bring a
// dependency tree for one test.
type browser struct {
	cmd     *exec.Cmd
	send    *os.File
	msgs    chan cdpMessage
	pending []cdpMessage // events read while waiting for a reply
	id      int
	session string
}

type cdpMessage struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts Chromium and opens one page; it is closed when the test ends.
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	toChrome, chromeIn, err := os.Pipe() // we write, Chromium reads on fd 3
	if err != nil {
		t.Fatal(err)
	}
	chromeOut, fromChrome, err := os.Pipe() // Chromium writes on fd 4, we read
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	_ = toChrome.Close()
	_ = fromChrome.Close()
	b := &browser{cmd: cmd, send: chromeIn, msgs: make(chan cdpMessage, 64)}
	go func() {
		defer close(b.msgs)
		r := bufio.NewReaderSize(chromeOut, 1<<20)
		for {
			raw, err := r.ReadBytes(0)
			if err != nil {
				return
			}
			var m cdpMessage
			if json.Unmarshal(raw[:len(raw)-1], &m) == nil {
				b.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		_ = b.call(context.Background(), "", "Browser.close", nil, nil)
		_ = chromeIn.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = chromeOut.Close()
	})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var target struct{ TargetID string }
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct{ SessionID string }
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	b.session = attached.SessionID
	if err := b.call(ctx, b.session, "Page.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	return b
}

// call sends a command (to the page's session unless session is "") and decodes
// its result into out.
func (b *browser) call(ctx context.Context, session, method string, params, out any) error {
	b.id++
	id := b.id
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := b.next(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.ID != id {
			if m.Method != "" {
				b.pending = append(b.pending, m)
			}
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	}
}

func (b *browser) next(ctx context.Context) (cdpMessage, error) {
	select {
	case m, ok := <-b.msgs:
		if !ok {
			return cdpMessage{}, errors.New("chromium closed the DevTools pipe")
		}
		return m, nil
	case <-ctx.Done():
		return cdpMessage{}, ctx.Err()
	}
}

// waitEvent waits for an event of the page's session.
func (b *browser) waitEvent(ctx context.Context, method string) error {
	for i, m := range b.pending {
		if m.Method == method && m.SessionID == b.session {
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			return nil
		}
	}
	b.pending = nil
	for {
		m, err := b.next(ctx)
		if err != nil {
			return fmt.Errorf("wait for %s: %w", method, err)
		}
		if m.Method == method && m.SessionID == b.session {
			return nil
		}
	}
}

// open loads url in a viewport width px wide (a phone's when narrow) and waits
// for the load event.
func (b *browser) open(ctx context.Context, url string, width, height int) error {
	if err := b.resize(ctx, width, height); err != nil {
		return err
	}
	b.pending = nil
	if err := b.call(ctx, b.session, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	return b.waitEvent(ctx, "Page.loadEventFired")
}

func (b *browser) resize(ctx context.Context, width, height int) error {
	return b.call(ctx, b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func (b *browser) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.call(ctx, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		return fmt.Errorf("script: %s %s", e.Text, e.Exception.Description)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// screenshot saves the whole page, as wide as the viewport, as a PNG.
func (b *browser) screenshot(ctx context.Context, path string, width int) error {
	var height int
	if err := b.eval(ctx, "document.documentElement.scrollHeight", &height); err != nil {
		return err
	}
	if err := b.resize(ctx, width, height); err != nil {
		return err
	}
	var shot struct{ Data string }
	if err := b.call(ctx, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}
