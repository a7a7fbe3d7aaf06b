#ifndef PUSHMOCK_SPAWN_CLOSEFROM_H
#define PUSHMOCK_SPAWN_CLOSEFROM_H
#include <spawn.h>

/// Adds "close every descriptor from `lowest` up" to `actions` (glibc 2.34's
/// posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module does not export
/// because it is a GNU extension). Returns 0 or an errno value.
int pushmock_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest);

#endif
