// A bridge's program gets only its three standard descriptors: without this it would inherit
// every descriptor of pushmock's that lacks close-on-exec, and, while another thread is between
// pipe() and fcntl(), that thread's pipe too (docs/bridges.md, "Commands").
#define _GNU_SOURCE
#include "spawn_closefrom.h"

int pushmock_spawn_closefrom(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
