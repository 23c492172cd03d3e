package vcd

import "io"

// The writer's output buffer. Text is appended to Writer.buf, which is
// handed to the io.Writer in pieces of chunkSize bytes, as the
// bufio.Writer the writer used before did: the destination sees the same
// Write calls, also when one of them fails, and nothing is written after
// a failure. Appending to one slice instead of calling a bufio.Writer per
// line saves a call and a copy per line.
//
// Every place that appends checks that fewer than chunkSize bytes are
// buffered before it appends a line (a time line, a value line, or both);
// bufSlack more bytes of capacity then hold the line and the 8-byte
// stores the formatting does past its end (format.go), so the buffer
// never grows. The formatting functions still grow a buffer that is too
// short, so a broken check costs an allocation, not a panic.
const (
	chunkSize    = 64 << 10
	maxValueLine = 1 + MaxWidth + 1 + 16 + 1 // "b", digits, " ", id, "\n"
	bufSlack     = 2*maxValueLine + 64
)

// drain writes the whole chunks of b and returns b holding the rest.
func (w *Writer) drain(b []byte) []byte {
	n := 0
	for len(b)-n >= chunkSize {
		w.write(b[n : n+chunkSize])
		n += chunkSize
	}
	if n == 0 {
		return b
	}
	return b[:copy(b, b[n:])]
}

// spill drains w.buf if it holds a whole chunk.
func (w *Writer) spill() {
	if len(w.buf) >= chunkSize {
		w.buf = w.drain(w.buf)
	}
}

// flushAll writes everything buffered and returns the destination's
// first error.
func (w *Writer) flushAll() error {
	b := w.drain(w.buf)
	if len(b) > 0 {
		w.write(b)
	}
	w.buf = b[:0]
	return w.werr
}

// write hands p to the destination unless it failed before; a short
// write without an error is io.ErrShortWrite.
func (w *Writer) write(p []byte) {
	if w.werr != nil {
		return
	}
	n, err := w.out.Write(p)
	if n < len(p) && err == nil {
		err = io.ErrShortWrite
	}
	w.werr = err
}
