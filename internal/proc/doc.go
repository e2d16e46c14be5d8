// Package proc owns every child process agentloop starts: agents, reviewers and
// gates. [Run] starts a command in its own process group, enforces a timeout and an
// idle timeout, ends the whole group politely (SIGTERM, then SIGKILL after a grace
// period) and never leaves a child behind, even one that ignores SIGTERM and keeps
// the output pipes open. [Log] keeps the head and tail of any amount of output in
// constant memory; [Lines] splits output into bounded lines. No child outlives
// agentloop: on Linux each gets a parent-death signal, and a program whose
// [Groups] names its binary ([Groups.Watchdog]) starts a [Watchdog] that ends
// what its runs left once it dies, however it dies. On macOS, which has neither
// cgroups nor a subreaper, each run's process tree is watched instead (a scan
// of the process table every [watchEvery]), and what left the run's group dies
// with it. The one exception is
// [Detach]: agentloop itself started to go on alone (a run resumed from
// `agentloop watch`), in a session of its own. [Alive] and
// [StartTime] identify a process for stale-lock detection. Whether a command
// line needs sh -c, and how an argv is quoted for a person, is package
// shellword's.
//
// Only this package imports os/exec (apart from git helpers in internal/gitx).
package proc
