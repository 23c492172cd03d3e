package scenario

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxQuoted is how many characters of a value from the input an error
// quotes.
const maxQuoted = 64

// cut is s cut after maxQuoted characters (an invalid UTF-8 byte counts as
// one), and how many characters s has.
func cut[S ~string | ~[]byte](s S) (head string, n int, whole bool) {
	str := string(s)
	n = utf8.RuneCountInString(str)
	if n <= maxQuoted {
		return str, n, true
	}
	i := 0
	for range maxQuoted {
		_, size := utf8.DecodeRuneInString(str[i:])
		i += size
	}
	return str[:i], n, false
}

// quote is a value from the input as a Go string literal for an error: at
// most its first 64 characters, then an ellipsis and its length, as in
// "0x1234…" (300 characters).
func quote[S ~string | ~[]byte](s S) string {
	head, n, whole := cut(s)
	if whole {
		return strconv.Quote(head)
	}
	return fmt.Sprintf("%s (%d characters)", strconv.Quote(head+"…"), n)
}

// clip is a value from the input as written (a number), cut as quote cuts
// it: 1234… (300 characters).
func clip[S ~string | ~[]byte](s S) string {
	head, n, whole := cut(s)
	if whole {
		return head
	}
	return fmt.Sprintf("%s… (%d characters)", head, n)
}

// keyName is a key from the input as a path names it: at most its first
// 64 characters, then an ellipsis.
func keyName(k []byte) string {
	head, _, whole := cut(k)
	if whole {
		return head
	}
	return head + "…"
}
