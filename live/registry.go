package live

import (
	"errors"
	"fmt"
)

// ErrHandle is the error of a call naming no live instance of its kind.
var ErrHandle = errors.New("no such instance")

// Registry names instances by handles: positive, increasing, never
// reused, so that a stale handle is an error and not another instance.
// It is not safe for concurrent use; the C library serialises its calls.
type Registry struct {
	next  int64
	items map[int64]any
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{items: make(map[int64]any)} }

// Add registers an instance and returns its handle.
func (r *Registry) Add(x any) int64 {
	r.next++
	r.items[r.next] = x
	return r.next
}

// Delete forgets the instance h; its memory goes with the last reference.
func (r *Registry) Delete(h int64) error {
	if _, ok := r.items[h]; !ok {
		return fmt.Errorf("handle %d: %w", h, ErrHandle)
	}
	delete(r.items, h)
	return nil
}

// Len is the number of live instances.
func (r *Registry) Len() int { return len(r.items) }

// Model returns the model instance h.
func (r *Registry) Model(h int64) (*Model, error) { return get[*Model](r, h, "model") }

// Cache returns the cache instance h.
func (r *Registry) Cache(h int64) (*Cache, error) { return get[*Cache](r, h, "cache") }

func get[T any](r *Registry, h int64, kind string) (T, error) {
	x, ok := r.items[h].(T)
	if !ok {
		return x, fmt.Errorf("handle %d is not a live %s: %w", h, kind, ErrHandle)
	}
	return x, nil
}
