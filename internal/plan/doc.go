// Package plan resolves a procedure of the loaded configuration, for one work
// tree, into everything a run needs: the agent, fallback and reviewer presets,
// the gates, the limits, the decision policy and the tunables read from the
// environment. It builds the engine's adapters (agent runner, reviewer, gates,
// prompt composer) from that plan, so every engine is assembled from the same
// resolved facts.
package plan
