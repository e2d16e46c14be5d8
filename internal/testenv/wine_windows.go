//go:build windows

package testenv

import "golang.org/x/sys/windows"

// underWine reports whether ntdll is Wine's: only it exports wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
