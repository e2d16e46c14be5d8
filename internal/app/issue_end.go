package app

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/agentloop/agentloop/internal/decision"
	"github.com/agentloop/agentloop/internal/forge"
	"github.com/agentloop/agentloop/internal/state"
)

// The commands a person who may write to the repository answers an
// escalation with, in a comment on the issue after its question.
const (
	IssueGuide  = "guide"  // /agentloop guide TEXT: go on with TEXT, as resume --guidance
	IssueAccept = "accept" // /agentloop accept: as resume --accept
	IssueAbort  = "abort"  // /agentloop abort: as resume --abort
)

// IssueCommand reads the /agentloop command a comment starts with: its kind
// ([IssueGuide], [IssueAccept], [IssueAbort]) and, for guide, the guidance
// (the rest of the comment). ok is false for a comment that starts with no
// such command (a guide without text included).
func IssueCommand(body string) (kind, text string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(body), "/agentloop")
	if !found || rest == "" || !unicode.IsSpace(rune(rest[0])) {
		return "", "", false
	}
	rest = strings.TrimSpace(rest)
	verb, arg := rest, ""
	if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
		verb, arg = rest[:i], strings.TrimSpace(rest[i:])
	}
	switch verb {
	case IssueGuide:
		if arg == "" {
			return "", "", false
		}
		return verb, arg, true
	case IssueAccept, IssueAbort:
		return verb, "", true
	}
	return "", "", false
}

// issueAnswer is a writer's answer to an escalation, read from a comment.
type issueAnswer struct {
	id            int64 // its comment
	kind, by      string
	guidance      string
	accept, abort bool
}

// answer is the first command of a person who may write in the comments
// after the escalation's question (found false: none yet), and before the
// question that carries it, if one does ([state.Issue.Carrier]): a command
// answers the question asked last before it. Commands of anyone else are
// never taken; the progress comment says how many were ignored, without
// quoting them.
func (r *issueRun) answer(ctx context.Context, link state.Issue) (issueAnswer, bool, error) {
	return r.command(ctx, link.Asked, link.Carrier)
}

// command is the first command of a person who may write in the comments
// after the question's comment after and before the comment before (0:
// none).
func (r *issueRun) command(ctx context.Context, after, before int64) (issueAnswer, bool, error) {
	if after == 0 {
		return issueAnswer{}, false, nil // not asked yet: nothing can answer it
	}
	cs, err := r.comments(ctx)
	if err != nil {
		return issueAnswer{}, false, err
	}
	for _, c := range cs {
		r.heard = max(r.heard, c.ID)
		if c.ID == after {
			r.askedURL = c.URL
		}
		if c.ID <= after || before > after && c.ID >= before {
			continue
		}
		kind, text, ok := IssueCommand(c.Body)
		if !ok {
			continue
		}
		if !c.Trusted {
			r.ignored++
			continue
		}
		a := issueAnswer{id: c.ID, kind: kind, by: c.Author, accept: kind == IssueAccept, abort: kind == IssueAbort}
		if kind == IssueGuide {
			a.guidance = text
		}
		return a, true, nil
	}
	return issueAnswer{}, false, nil
}

// ask puts the escalation's question on the issue, once for each
// escalation (a restart finds the comment it posted), with its options and
// how to answer; the labels say the issue needs a person.
func (r *issueRun) ask(ctx context.Context, st *state.State) error {
	r.shown.ignored = r.ignored
	if err := r.label(ctx, []string{r.labels.NeedsYou}, []string{r.labels.Running}); err != nil {
		return err
	}
	key := fmt.Sprintf("%s/%d/%d", st.RunID, st.Segment, st.Attempts)
	if st.Issue.AskedFor != key || st.Issue.Asked == 0 {
		rec := r.states.needsYou(ctx, st)
		id, url, err := r.postOnce(ctx, "escalation", key, escalationBody(rec.Question, rec.Evidence, rec.Options, st, r.ref))
		if err != nil {
			return err
		}
		if err := r.record(ctx, func(i *state.Issue) {
			if strings.HasPrefix(i.AskedFor, "pr/") {
				// A continuation's, while a question over a cap waits: carried,
				// and asked again once this one is answered ([issueRun.loop]).
				i.Carried = i.AskedFor
			}
			i.Carrier = 0
			i.Asked, i.AskedFor = id, key
		}); err != nil {
			return err
		}
		r.shown.note = "Waiting for an answer: " + url
		fmt.Fprintf(r.out, "Issue %s: the question is on the issue (%s); a person who may write answers it there with /agentloop guide TEXT, /agentloop accept or /agentloop abort, then: agentloop run --issue %s\n", r.ref, url, r.o.Ref)
	} else if r.ignored > 0 {
		fmt.Fprintf(r.out, "Issue %s: %d /agentloop %s by people who cannot write to the repository ignored; still waiting for an answer\n", r.ref, r.ignored, pluralize(r.ignored, "command"))
	} else {
		fmt.Fprintf(r.out, "Issue %s: still waiting for an answer on the issue\n", r.ref)
	}
	return r.edit(ctx)
}

// escalationBody is the comment that asks an escalation's question.
func escalationBody(question, evidence string, options []decision.Answer, st *state.State, ref forge.IssueRef) string {
	var b strings.Builder
	b.WriteString(forge.Marker("escalation") + "\n<!-- agentloop:for " + fmt.Sprintf("%s/%d/%d", st.RunID, st.Segment, st.Attempts) + " -->\n")
	fmt.Fprintf(&b, "**agentloop needs you.** Run `%s` stopped to ask:\n\n", st.Name)
	if question == "" {
		question = st.Reason
	}
	b.WriteString("> " + strings.ReplaceAll(strings.TrimSpace(question), "\n", "\n> ") + "\n")
	if ev := strings.TrimSpace(evidence); ev != "" {
		b.WriteString("\n" + fenced(ev) + "\n")
	}
	if len(options) > 0 {
		b.WriteString("\nThe options:\n")
		for _, o := range options {
			b.WriteString("- " + o.Label)
			if o.TradeOff != "" {
				b.WriteString(": " + o.TradeOff)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nAnswer with a comment of your own that starts with one of these (only people who may write to the repository are heard):\n" +
		"- `/agentloop guide TEXT`: go on, with TEXT as guidance\n" +
		"- `/agentloop accept`: keep the best work so far and open the pull request\n" +
		"- `/agentloop abort`: stop here\n")
	fmt.Fprintf(&b, "\nThen `agentloop run --issue %s` takes the answer.\n", ref)
	return b.String()
}

// fenced is text in a code fence no line of it closes.
func fenced(s string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + "text\n" + s + "\n" + ticks
}

// postOnce posts body on the issue as a comment of kind with key, unless a
// comment of agentloop's with both is there (posted before a kill): its id
// and URL.
func (r *issueRun) postOnce(ctx context.Context, kind, key, body string) (int64, string, error) {
	cs, err := r.comments(ctx)
	if err != nil {
		return 0, "", err
	}
	for _, c := range cs {
		if ours(c) && strings.Contains(c.Body, forge.Marker(kind)) && strings.Contains(c.Body, "<!-- agentloop:for "+key+" -->") {
			return c.ID, c.URL, nil
		}
	}
	if !strings.Contains(body, "<!-- agentloop:for ") {
		body = forge.Marker(kind) + "\n<!-- agentloop:for " + key + " -->\n" + body
	}
	c, err := r.f.Comment(ctx, r.ref, body)
	if err != nil {
		return 0, "", forgeFailure(err, r.ref.Host, "comment on issue "+r.ref.String(), r.kept())
	}
	return c.ID, c.URL, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
