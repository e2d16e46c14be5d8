// Package ledger is the spend shared by every loop of a user on a machine:
// local runs and the tasks of task graphs, in any number of processes at
// once. Before an iteration starts its loop reserves what the iteration is
// predicted to cost ([Ledger.Reserve]); after it, the loop settles the
// reservation with what the agent, its fallbacks and the reviewer spent
// ([Ledger.Settle]). A loop's first iteration, with no mean of its own,
// reserves 1.2 × the mean of its provider's last iterations in the ledger,
// else what [FirstUSD] says ([Book.FirstCost]): one rule for the file ledger
// and the Temporal engine's ledger workflow, which fold the same [Book]. A
// reservation is granted only when what every cap it falls under has spent,
// plus the reservations still open, plus this one, stays within the cap: N
// loops running at once overshoot a cap together by no more than what their
// iterations cost beyond their reservations.
//
// Caps ([Cap]) are per day, ISO week or month (in the machine's time zone),
// in total or for one provider (the agent preset: claude, codex, …), account
// ([Key.Account]: an identity derived from the API key, never the key) or
// model. A hard limit refuses the reservation (the loop stops as a budget
// abort); a soft limit parks it until a person approves the cap for the
// period ([Ledger.Approve]) or raises it. A usage window ([Ledger.OpenWindow])
// is an account's usage limit with its reset time, as an agent CLI reported
// it: every loop on that account waits for the reset before its next
// iteration.
//
// # The file
//
// The ledger is one append-only file of JSON lines (ledger.jsonl in the
// user's state folder). A writer holds an exclusive flock while it reads what
// others appended since its last look and appends its own records, then syncs
// the file (a reservation excepted: the settlement's sync makes it durable,
// see [Ledger.Reserve]); the kernel drops the lock of a process that dies, so a crash never
// leaves the ledger locked. Nothing is ever rewritten: a crash part-way through
// an append leaves a last line without its newline, which the next writer cuts
// off (it was never acknowledged), and zeros a machine's crash left where an
// unsynced reservation was are skipped. A reservation whose process died is no
// longer counted as open; the attempt's recovery settles it later with what
// its transcript tells, and a reservation is settled once (its id), so a
// spend is never counted twice.
//
// Why a journal and not SQLite: the ledger's writes are a few small records
// per iteration (minutes apart), its reads a fold over them; a journal under
// flock gives the same crash and multi-process guarantees for this shape with
// no dependency (the pure-Go SQLite driver adds about 10 MB to the binary and
// minutes to every build), and a person can read it with jq. Each process
// keeps the fold in memory and reads only what was appended since, so an
// iteration costs two locks, two small reads, two appends and one fsync.
package ledger
