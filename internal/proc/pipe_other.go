//go:build !linux

package proc

import "os"

// growPipe does nothing here: only Linux sets a pipe's capacity.
func growPipe(*os.File) {}
