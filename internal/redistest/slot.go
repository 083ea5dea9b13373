package redistest

import "strings"

// Slot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of its hash
// tag, the part between the first { and the next }, when that is not empty.
func Slot(key string) uint16 {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^key[i]]
	}
	return crc % 16384
}

// crcTable is CRC16 (XMODEM, polynomial 0x1021) of each byte, so Slot takes
// a lookup a byte rather than eight shifts: every script call of every test
// passes through it, under the race detector.
var crcTable = func() (t [256]uint16) {
	for b := range t {
		crc := uint16(b) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[b] = crc
	}
	return t
}()
