#include <sys/types.h>
#include <nghttp2/nghttp2.h>
