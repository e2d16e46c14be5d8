// Package plan resolves a procedure of the loaded configuration, for one work
// tree, into everything a run needs: the agent, fallback and reviewer presets,
// the gates, the limits, the decision policy and the tunables read from the
// environment. It holds and builds the implementations of the loop's ports
// from that plan ([PresetAgents], [ReviewerAgent], [PromptComposer] and the
// one gate runner, [ProcGates], with its redactor and sandbox), so every
// engine is assembled from the same resolved facts.
package plan
