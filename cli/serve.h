/* serve: the players' view of a session over HTTP (`fray repl --serve`):
 * a read-only page of the encounter as the players may know it, updated
 * live by Server-Sent Events. libmicrohttpd serves it on threads of its
 * own, from a snapshot the REPL's thread publishes after each command, so
 * that the session itself is only ever touched by that thread, and only
 * the players' view of it (fray_state_view, fray_transcript) leaves the
 * process: hidden creatures, their rolls and hidden stats never do. */
#ifndef FRAY_CLI_SERVE_H
#define FRAY_CLI_SERVE_H

#include "fray.h"

typedef struct serve serve;

/* Starts serving at where: "PORT" (on this machine only), "HOST:PORT" or
   "[IPV6]:PORT" (0 for a free port). Bound beyond this machine, every
   request must carry a random token, given in the address to open.
   Returns NULL after saying why on stderr; *url is the address to open
   (free it). */
serve *serve_start(const char *where, char **url);
/* Publishes the players' view of f as it stands (after each command);
   the pages open get it at once. */
void serve_publish(serve *sv, fray *f);
/* Ends every stream and stops serving. */
void serve_stop(serve *sv);

#endif
