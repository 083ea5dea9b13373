//go:build !linux

package redistest

import "os/exec"

// dieWithParent: only Linux can tie a child's life to its parent's; the
// servers of a test process that dies elsewhere are left to the user.
func dieWithParent(*exec.Cmd) {}
