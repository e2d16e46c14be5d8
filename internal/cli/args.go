package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// presentation flags change what is printed, not what the run does: they are
// not recorded for resume.
var presentation = map[string]bool{"dry-run": true, "verbose": true, "quiet": true, "log-format": true, "tasks": true, "parallel": true}

// givenFlags returns the flags given on the command line, as arguments that
// parse back to the same values.
func givenFlags(cmd *cobra.Command) []string {
	var args []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if presentation[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}

// recordedRun rebuilds the run command of a recorded run with its flags, then
// applies the flags given now on top (they win). It returns the command whose
// Changed flags describe the merged set, and the merged flag values.
func recordedRun(d Deps, recorded []string, now *cobra.Command) (*cobra.Command, *runFlags, error) {
	var f runFlags
	base := &cobra.Command{Use: "run"}
	addRunFlags(base, &f)
	if err := base.Flags().Parse(recorded); err != nil {
		return nil, nil, usageError("the run's recorded flags %q no longer parse: %v; start a new run instead", recorded, err)
	}
	var err error
	now.Flags().Visit(func(fl *pflag.Flag) {
		if err != nil || base.Flags().Lookup(fl.Name) == nil {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			if target, ok := base.Flags().Lookup(fl.Name).Value.(pflag.SliceValue); ok {
				err = target.Replace(sv.GetSlice())
				base.Flags().Lookup(fl.Name).Changed = true
			}
			return
		}
		err = base.Flags().Set(fl.Name, fl.Value.String())
	})
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	return base, &f, nil
}
