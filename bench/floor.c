/* The benchmark floor: a bare libevent evhttp server that answers every request with a
 * fixed FCM-shaped body and does no other work. Usage: floor PORT (0 picks one); it prints
 * "http://127.0.0.1:PORT" once listening. */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/http.h>

static const char body[] =
    "{\"multicast_id\":7497838685051704056,\"success\":1,\"failure\":0,\"canonical_ids\":0,"
    "\"results\":[{\"message_id\":\"0:1500415314455276%31bd1c9631bd1c96\"}]}";

static void answer(struct evhttp_request *req, void *arg) {
    (void)arg;
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "application/json; charset=UTF-8");
    evbuffer_add(evhttp_request_get_output_buffer(req), body, sizeof body - 1);
    evhttp_send_reply(req, 200, "OK", NULL);
}

int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 0;
    signal(SIGPIPE, SIG_IGN);
    struct event_base *base = event_base_new();
    struct evhttp *http = base ? evhttp_new(base) : NULL;
    if (!http) { fprintf(stderr, "floor: libevent setup failed\n"); return 1; }
    evhttp_set_gencb(http, answer, NULL);
    struct evhttp_bound_socket *sock = evhttp_bind_socket_with_handle(http, "127.0.0.1", (unsigned short)port);
    if (!sock) { fprintf(stderr, "floor: cannot bind\n"); return 1; }
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    getsockname(evhttp_bound_socket_get_fd(sock), (struct sockaddr *)&addr, &len);
    printf("http://127.0.0.1:%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    event_base_dispatch(base);
    evhttp_free(http);
    event_base_free(base);
    return 0;
}
