#ifndef PUSHMOCK_DASHBOARD_H
#define PUSHMOCK_DASHBOARD_H
#include <stddef.h>

/// One file the dashboard serves: its URL path, content type and bytes.
typedef struct {
    const char *path;
    const char *type;
    const unsigned char *bytes;
    size_t size;
} pushmock_asset;

/// The dashboard's files, embedded at build time (dashboard.c): `pushmock_asset_count` of
/// them, the i-th from `pushmock_asset_at(i)`.
extern const size_t pushmock_asset_count;
const pushmock_asset *pushmock_asset_at(size_t i);

#endif
