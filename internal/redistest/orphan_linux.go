package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill a server whose test process died
// without stopping it (a test binary's timeout panic, a kill -9), so no
// redis-server outlives its tests and holds a port.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
