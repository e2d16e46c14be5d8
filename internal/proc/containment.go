package proc

import "fmt"

// Kinds of [Containment].
const (
	// ContainCgroup: each run gets a cgroup (v2) of its own under Where; every
	// process it starts stays in it, whatever it does to its group, session or
	// environment, and is killed with it.
	ContainCgroup = "cgroup"
	// ContainSubreaper: agentloop adopts the orphans of its runs (Linux's child
	// subreaper); one that left its run's group and dropped the marker is in a
	// session of its own and is killed when no other run is live.
	ContainSubreaper = "subreaper"
	// ContainGroup: only the run's process group and what carries its marker
	// are ended (no /proc): a process that calls setsid escapes.
	ContainGroup = "process group"
	// ContainJob: each run is a Job Object of its own (Windows) that every
	// process it starts is in, killed whole when the run ends or agentloop
	// dies.
	ContainJob = "job object"
	// ContainWatch: the run's process group, and a watch of its process
	// tree (macOS): every descendant seen in a scan of the process table
	// (every [watchEvery]) or carrying the run's marker is killed with it, even
	// after leaving the group and its parent.
	ContainWatch = "process group and watch"
)

// Containment is how agentloop ends what an agent or gate leaves behind.
type Containment struct {
	Kind  string
	Where string // the cgroup directory runs' cgroups are made in, for ContainCgroup
	Why   string // why there is no cgroup, for ContainSubreaper
}

// String says it in one line for people.
func (c Containment) String() string {
	switch c.Kind {
	case ContainCgroup:
		return fmt.Sprintf("cgroup: each agent and gate run in a cgroup of its own under %s, killed whole when the run ends", c.Where)
	case ContainJob:
		return "job object: each agent and gate run in a Windows job object of its own, killed whole when the run ends or agentloop exits"
	case ContainSubreaper:
		return "subreaper: processes that leave a run's group and drop its marker (env -i setsid …) are found among the orphans agentloop adopts, and killed when no other agent or gate runs (" + c.Why + ")"
	case ContainWatch:
		return fmt.Sprintf("process group and watch: the process table is scanned every %v for each agent and gate run's descendants; what left the run's group (setsid), or carries its marker, is killed with it; a process that drops the marker (env -i setsid …) and whose parent ends within %[1]v of its start escapes", watchEvery)
	}
	return "process group: the run's process group is ended; a process that calls setsid escapes (no /proc on this system)"
}
