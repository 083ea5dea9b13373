package board

import "sync"

// memoKeys bounds what one Memo keeps: the few encodings of an answer its
// readers ask for (the API's body, say), not one per reader.
const memoKeys = 4

// Memo keeps what readers make of one cached answer, such as the API's
// encoded body, so every reader of the same answer after the first reuses
// that work. The read cache gives each answer it holds a Memo of its own,
// shared by the copies it hands out; a Page read from the store has none,
// and Of then makes the value every time.
//
// A value kept must depend on nothing but the answer and its key: a
// reader whose view differs (a privacy mode's masks) must not use it.
type Memo struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Of is the value kept under key, made by build when none is kept yet. The
// caller must not change the bytes returned.
func (m *Memo) Of(key string, build func() ([]byte, error)) ([]byte, error) {
	if m == nil {
		return build()
	}
	m.mu.Lock()
	v, ok := m.m[key]
	m.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.m == nil {
		m.m = make(map[string][]byte, memoKeys)
	}
	if _, ok := m.m[key]; !ok && len(m.m) < memoKeys {
		m.m[key] = v
	}
	m.mu.Unlock()
	return v, nil
}
