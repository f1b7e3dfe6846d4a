package census

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/contractcheck/contractcheck/internal/spill"
)

// How the census finds a distinct reading by its fingerprint (docs/design.md, "Speed and
// memory"): while it has seen few (indexInMemory), in a map, as it always did; past that, in a
// hash table in a temporary file (unlinked once open, as the readings' bytes are), read and
// written in place (pread, pwrite), with a small table in memory in front of it for the readings
// that come again and again (a pass with no readout is most of a run's). The distinct readings
// grow with the bindings (a run whose diagnostics name each version has one per version and
// stage): at a million bindings their index was some 9 MB of live heap to the end of the
// stream, where the run's peak is, and ten times that at ten million. Where no file can be made or
// written, the index stays in memory: the file saves memory and changes nothing else.

// indexInMemory is how many distinct readings the index holds in memory before it moves to its
// file: a map of them is about a quarter of a megabyte (16,384 of them, a megabyte, until stop 56).
const indexInMemory = 1 << 12

// Slots of the file's table: a fingerprint, then the reading's id plus one (0: an empty slot).
const (
	slotSize    = sha256.Size + 4
	probeWindow = 16 // slots read at once while probing
	frontBits   = 12 // the front table in memory: 4096 slots, 144 KiB
)

// fpIndex is the distinct readings' index, fingerprint to id.
type fpIndex struct {
	mem   map[[sha256.Size]byte]int32 // the index while it is in memory; nil once in the file
	disk  *diskIndex
	front []frontSlot // in front of the file: the last reading seen at each slot
	dir   string      // where the file is made, os.TempDir() when empty
	// inMemory is how many readings the map holds before the index moves to its file:
	// indexInMemory, fewer in tests.
	inMemory int
	// noFile is set when the file could not be made: the index stays in memory.
	noFile bool
}

// frontSlot is a fingerprint and its id plus one (0: empty).
type frontSlot struct {
	fp [sha256.Size]byte
	id int32
}

func newFPIndex(dir string) *fpIndex {
	return &fpIndex{mem: map[[sha256.Size]byte]int32{}, dir: dir, inMemory: indexInMemory}
}

// find returns the id of the reading whose fingerprint is fp, calling add to make it (and give
// it its id) when the index has none.
func (x *fpIndex) find(fp *[sha256.Size]byte, add func() (int32, error)) (int32, error) {
	if x.mem != nil {
		if id, ok := x.mem[*fp]; ok {
			return id, nil
		}
		id, err := add()
		if err != nil {
			return 0, err
		}
		x.mem[*fp] = id
		if len(x.mem) > x.inMemory && !x.noFile {
			x.toFile()
		}
		return id, nil
	}
	f := &x.front[binary.LittleEndian.Uint32(fp[8:12])&(1<<frontBits-1)]
	if f.id != 0 && f.fp == *fp {
		return f.id - 1, nil
	}
	id, slot, ok, err := x.disk.lookup(fp)
	if err != nil {
		return 0, err
	}
	if !ok {
		if id, err = add(); err != nil {
			return 0, err
		}
		if err := x.disk.insert(slot, fp, id); err != nil {
			return 0, err
		}
		if 2*x.disk.n > x.disk.slots {
			if x.disk, err = x.disk.grow(); err != nil {
				return 0, err
			}
		}
	}
	f.fp, f.id = *fp, id+1
	return id, nil
}

// toFile moves the index from memory to its file; where the file cannot be made or written, the
// index stays in memory.
func (x *fpIndex) toFile() {
	d, err := newDiskIndex(x.dir, 4*int64(len(x.mem)))
	if err == nil {
		for fp, id := range x.mem {
			if err = d.add(&fp, id); err != nil {
				break
			}
		}
	}
	if err != nil {
		x.noFile = true
		return
	}
	x.mem, x.disk, x.front = nil, d, make([]frontSlot, 1<<frontBits)
}

// diskIndex is an open-addressing hash table of fingerprints in a file, probed linearly from the
// slot the fingerprint's first bytes name: a sha256 needs no other hash. It holds at most half
// as many readings as it has slots, and grows (into a new file) past that.
type diskIndex struct {
	file  *spill.File
	dir   string
	slots int64 // a power of two
	n     int64
	buf   []byte // the probe's window
}

// newDiskIndex makes an empty table of at least slots slots in a new file in dir.
func newDiskIndex(dir string, slots int64) (*diskIndex, error) {
	n := int64(probeWindow)
	for n < slots {
		n *= 2
	}
	d := &diskIndex{dir: dir, slots: n, buf: make([]byte, probeWindow*slotSize)}
	s, err := spill.Open(d, dir)
	if err != nil {
		return nil, err
	}
	d.file = s
	// The slots are written (zeros) rather than left a hole (Truncate): a write into a hole has the
	// file system allocate its block, which made each insert cost 8–15 µs instead of 2–3.
	for off := int64(0); off < n*slotSize; off += int64(len(zeros)) {
		if _, err := s.WriteAt(zeros[:min(int64(len(zeros)), n*slotSize-off)], off); err != nil {
			s.Close()
			return nil, err
		}
	}
	return d, nil
}

// zeros are the bytes of a new table's empty slots.
var zeros [64 << 10]byte

// lookup finds fp: its id, or the empty slot where it goes.
func (d *diskIndex) lookup(fp *[sha256.Size]byte) (id int32, slot int64, ok bool, err error) {
	at := int64(binary.LittleEndian.Uint64(fp[:8]) & uint64(d.slots-1))
	for probed := int64(0); probed < d.slots; {
		k := min(probeWindow, d.slots-at)
		p := d.buf[:k*slotSize]
		if got, err := d.file.ReadAt(p, at*slotSize); int64(got) < k*slotSize {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return 0, 0, false, fmt.Errorf("read the readings' index kept in %s: %w", d.file.Name(), err)
		}
		for i := range k {
			s := p[i*slotSize : (i+1)*slotSize]
			v := binary.LittleEndian.Uint32(s[sha256.Size:])
			if v == 0 {
				return 0, at + i, false, nil
			}
			if [sha256.Size]byte(s[:sha256.Size]) == *fp {
				return int32(v - 1), 0, true, nil
			}
		}
		probed += k
		at = (at + k) & (d.slots - 1)
	}
	return 0, 0, false, fmt.Errorf("the readings' index in %s is full", d.file.Name())
}

// insert writes fp and its id to the empty slot lookup found for it. The caller doubles the table
// (grow) when it is half full.
func (d *diskIndex) insert(slot int64, fp *[sha256.Size]byte, id int32) error {
	var s [slotSize]byte
	copy(s[:], fp[:])
	binary.LittleEndian.PutUint32(s[sha256.Size:], uint32(id)+1)
	if _, err := d.file.WriteAt(s[:], slot*slotSize); err != nil {
		return fmt.Errorf("write the readings' index kept in %s: %w", d.file.Name(), err)
	}
	d.n++
	return nil
}

// add puts fp, which the table does not hold, with its id.
func (d *diskIndex) add(fp *[sha256.Size]byte, id int32) error {
	_, slot, ok, err := d.lookup(fp)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("a reading indexed twice in %s", d.file.Name())
	}
	return d.insert(slot, fp, id)
}

// grow makes a table of four times d's slots in a new file, reading d's in order, and closes
// d's: each reading is moved a third of a time on average, instead of once when doubling.
func (d *diskIndex) grow() (*diskIndex, error) {
	nd, err := newDiskIndex(d.dir, 4*d.slots)
	if err != nil {
		return nil, fmt.Errorf("grow the readings' index: %w", err)
	}
	const chunk = 1024
	p := make([]byte, chunk*slotSize)
	for at := int64(0); at < d.slots; at += chunk {
		k := min(chunk, d.slots-at)
		if got, err := d.file.ReadAt(p[:k*slotSize], at*slotSize); int64(got) < k*slotSize {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("read the readings' index kept in %s: %w", d.file.Name(), err)
		}
		for i := range k {
			s := p[i*slotSize : (i+1)*slotSize]
			if v := binary.LittleEndian.Uint32(s[sha256.Size:]); v != 0 {
				if err := nd.add((*[sha256.Size]byte)(s[:sha256.Size]), int32(v-1)); err != nil {
					return nil, err
				}
			}
		}
	}
	d.file.Close()
	return nd, nil
}
