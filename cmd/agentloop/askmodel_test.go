package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// askModel is a program of the scripts, as an agent CLI would talk to a model:
// it sends its standard input as the user's message of one Anthropic Messages
// request to the model double at URL (the first line of URLFILE), and prints
// the reply's status. The scripts use it to see what the double logs of what
// an agent sends it.
//
//	askmodel URLFILE < MESSAGE
func askModel() int {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: askmodel URLFILE < MESSAGE")
		return 2
	}
	u, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "askmodel:", err)
		return 1
	}
	msg, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "askmodel:", err)
		return 1
	}
	body, _ := json.Marshal(map[string]any{
		"model":      "claude-sonnet-4-5",
		"max_tokens": 64,
		"messages":   []map[string]string{{"role": "user", "content": string(msg)}},
	})
	url := strings.TrimSpace(strings.SplitN(string(u), "\n", 2)[0]) + "/v1/messages"
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, "askmodel:", err)
		return 1
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", os.Getenv("ANTHROPIC_API_KEY"))
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "askmodel:", err)
		return 1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	fmt.Println("askmodel:", resp.Status)
	if resp.StatusCode/100 != 2 {
		return 1
	}
	return 0
}
