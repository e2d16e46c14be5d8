package review

import (
	"context"
	"fmt"

	"github.com/agentloop/agentloop/internal/evidence"
)

// Asker sends a prompt to the reviewer agent (a fresh process each time, as far as
// this package knows) and returns its final answer text.
type Asker func(ctx context.Context, prompt string) (string, error)

// Review asks the reviewer for its verdict on in. An answer that cannot be parsed
// is asked for again once, with the prompt and a note naming what was wrong; a
// second unusable answer gives a verdict of unknown (with the reason in Summary)
// and no error. An error means the reviewer could not be asked at all (it failed
// to run, or ctx ended).
func Review(ctx context.Context, ask Asker, in Input) (evidence.Review, error) {
	prompt := Prompt(in)
	out, err := ask(ctx, prompt)
	if err != nil {
		return unknown(in, ""), fmt.Errorf("ask the reviewer: %w", err)
	}
	r, perr := Parse(out)
	if perr == nil {
		r.Round = in.Round
		return r, nil
	}
	out, err = ask(ctx, Correction(prompt, perr))
	if err != nil {
		return unknown(in, perr.Error()), fmt.Errorf("ask the reviewer again: %w", err)
	}
	r, perr2 := Parse(out)
	if perr2 != nil {
		return unknown(in, "reviewer answer unusable twice: "+perr2.Error()), nil
	}
	r.Round = in.Round
	return r, nil
}

// Correction is the prompt that asks again after an unusable answer: the
// original prompt and a short note naming the problem.
func Correction(prompt string, parseErr error) string {
	return prompt + "\n\n## Your previous answer could not be used\n\n" +
		"It was rejected because: " + parseErr.Error() + ".\n" +
		"Answer again with only the JSON object described above: no prose, no code fence, nothing after it.\n"
}

func unknown(in Input, why string) evidence.Review {
	return evidence.Review{Verdict: evidence.VerdictUnknown, Round: in.Round, Summary: why}
}
