// Package sandbox runs an agent (or a gate) where it can touch only what its
// work needs: the repository or worktree it works in is writable, its CLI's
// own configuration and cache directories are too, the rest of $HOME is
// hidden, /tmp is private, agentloop's own state is read-only, and the
// network is off, on, or limited to the hosts its CLI needs.
//
// On Linux it runs the command under bubblewrap (bwrap) in new mount, pid,
// IPC, UTS and (unless the network is on) network namespaces, with every
// capability dropped. A network limited to hosts is a network namespace with
// only a loopback device: agentloop's own binary runs inside as a small
// bridge ([Inside]) that listens on loopback ports and passes each connection
// over a Unix socket to agentloop outside, where an HTTP proxy lets through
// only the hosts on the allow-list (CONNECT for HTTPS, plain HTTP forwarded)
// and the allowed local ports are forwarded as they are. The agent finds the
// proxy in HTTP_PROXY and HTTPS_PROXY. On macOS the same policy is a
// sandbox-exec profile ([SeatbeltProfile]) with the proxy on a loopback port.
// Where neither exists, [Check] fails and a run that asks for the sandbox
// refuses to start.
//
// What a command may do is a [policy.Policy], made here ([Build]) from what a
// person configured and what the agent's CLI needs (package policy, which
// names them and runs nothing).
//
// This is the design of Anthropic's sandbox-runtime (bubblewrap or
// sandbox-exec, and a filtering proxy reached over Unix sockets), written in
// Go rather than used: sandbox-runtime is a Node package that would make Node
// and socat dependencies of a single Go binary whose agents need neither, its
// settings file and proxies are a second process tree between agentloop and
// the agent (its signals, process group, cgroup and marker), and it is a
// research preview whose configuration still changes.
//
// What it does not stop: a process running as root keeps root's file
// permissions on what it can see (the sandbox hides and makes read-only, it
// does not change the user), and a network that is on is the whole network.
package sandbox
