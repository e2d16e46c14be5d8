// Package review owns the reviewer side of the implementer–reviewer protocol: the
// prompt that asks a second agent for a strict verdict on an iteration's diff
// ([Prompt]), the tolerant reading and validation of the verdict JSON it answers
// ([Parse]), and the exchange itself with one corrective re-ask ([Review]). The
// verdict is an [evidence.Review]; people see it as APPROVED or NEEDS_REVISION
// ([Display]).
package review
