#ifndef PUSHMOCK_PREFETCH_H
#define PUSHMOCK_PREFETCH_H

/// Asks the processor to bring the cache line at `address` in, for writing, without waiting
/// for it (GCC's and Clang's `__builtin_prefetch`, which Swift has no spelling of). The
/// message store and the event log let go of what they made long ago; asked for a send ahead,
/// the memory is there when they do.
static inline void pushmock_prefetch(const void *address) { __builtin_prefetch(address, 1, 3); }

#endif
