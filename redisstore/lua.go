package redisstore

import (
	"embed"
	"fmt"
	"strings"
)

// luaFiles are the scripts (lua/*.lua) and the libraries they include
// (lua/lib/*.lua).
//
//go:embed lua/*.lua lua/lib/*.lua
var luaFiles embed.FS

// luaSource reads lua/<name>.lua (a script) or lua/lib/<name>.lua.
func luaSource(name string) string {
	b, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// usesOf reads the libraries a script or library says it uses: a line
// "-- uses: <library>, <library>" in its leading comment block.
func usesOf(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(line, "--") {
			break
		}
		if list, ok := strings.CutPrefix(line, "-- uses:"); ok {
			for _, lib := range strings.Split(list, ",") {
				out = append(out, strings.TrimSpace(lib))
			}
		}
	}
	return out
}

// libraries lists the libraries uses need, each after the ones it uses and
// each once: the order the loader concatenates them in.
func libraries(uses []string) ([]string, error) {
	var out []string
	state := map[string]int{} // 1: being added, 2: added
	var add func(lib string) error
	add = func(lib string) error {
		switch state[lib] {
		case 1:
			return fmt.Errorf("library %s uses itself", lib)
		case 2:
			return nil
		}
		state[lib] = 1
		src, err := luaFiles.ReadFile("lua/lib/" + lib + ".lua")
		if err != nil {
			return fmt.Errorf("no library %s", lib)
		}
		for _, dep := range usesOf(string(src)) {
			if err := add(dep); err != nil {
				return err
			}
		}
		state[lib] = 2
		out = append(out, lib)
		return nil
	}
	for _, lib := range uses {
		if err := add(lib); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// assemble is a script's source as Redis runs it: the libraries its header
// uses, then the script itself.
func assemble(src string) (string, error) {
	libs, err := libraries(usesOf(src))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, lib := range libs {
		b.WriteString(luaSource("lib/" + lib))
		b.WriteString("\n")
	}
	b.WriteString(src)
	return b.String(), nil
}
