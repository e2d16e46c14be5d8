package prompt_test

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/prompt"
	"github.com/agentloop/agentloop/internal/tokens"
)

func ExampleCompose() {
	parts := prompt.Parts{
		Context: []string{"Keep the public API stable."},
		Act:     prompt.Part{Text: "Fix the bug reported in iteration {{.Iteration}}."},
	}
	s, err := prompt.Compose(parts, prompt.Data{Iteration: 2, MaxIterations: 5}, prompt.FileReader("."))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(s)
	fmt.Println(tokens.Count(s) > 0)
	// Output:
	// Iteration 2 of 5
	//
	// # Context
	//
	// Keep the public API stable.
	//
	// # Instructions
	//
	// Fix the bug reported in iteration 2.
	// true
}
